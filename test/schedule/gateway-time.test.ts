import { describe, expect, it } from 'vitest';
import { readGatewayTimes } from '../../src/schedule/gateway-time.js';

describe('readGatewayTimes (see docs/rules.md#r15)', () => {
  it('reads X-In-Time and X-Out-Time from fetch Headers, case-insensitively', () => {
    expect(
      readGatewayTimes(new Headers({ 'X-In-Time': '1795219200123456', 'x-out-time': '1795219200124000' })),
    ).toEqual({ inTime: 1_795_219_200_123_456, outTime: 1_795_219_200_124_000 });
  });

  it("reads them from a WebSocket answer's header and from Node's incoming headers", () => {
    expect(readGatewayTimes({ x_in_time: 1681985856667508, x_out_time: 1681985856667598 })).toEqual({
      inTime: 1_681_985_856_667_508,
      outTime: 1_681_985_856_667_598,
    });
    expect(readGatewayTimes({ 'x-in-time': ['5', '6'], 'x-out-time': '7' })).toEqual({ inTime: 5, outTime: 7 });
  });

  it('gives nothing unless both are whole non-negative microseconds', () => {
    expect(readGatewayTimes({ 'x-in-time': '1795219200123456' })).toBeUndefined();
    expect(readGatewayTimes({ 'x-in-time': 'soon', 'x-out-time': '1' })).toBeUndefined();
    expect(readGatewayTimes({ 'x-in-time': '1.5', 'x-out-time': '2' })).toBeUndefined();
    expect(readGatewayTimes({ 'x-in-time': '-1', 'x-out-time': '2' })).toBeUndefined();
  });
});
