// The Lua scripts a Redis store runs, assembled from the files of src/redis/lua/: a script's text
// is the functions it calls, then its body (as bottleneck assembles its scripts). Each runs
// atomically in Redis, reads the instant from Redis (TIME) unless its caller gives one (a test),
// and keeps per limit two keys: a hash ("meta": n, w, m, used, pause, one field "#<id>" per grant
// with its weight, and "~<id>" with the weight LATE moved out of a grant) and a sorted set ("log":
// grant id scored by the latest instant its permits may be sent, the grant's instant plus the
// lease).
//
// A grant scored s counts against the window until s + w + m: every permit of it is sent at
// or before s, or else moved by LATE to an entry scored after it was sent, so no interval of w
// can hold more than n of them. The "epoch" key has no expiry;
// a Redis without it has lost its log (a restart) or is new, and grants nothing until a span
// has passed since it was made again, so that permits granted before the loss have left the
// window.

import away from './lua/away.lua';
import config from './lua/config.lua';
import count from './lua/count.lua';
import drop from './lua/drop.lua';
import epoch from './lua/epoch.lua';
import expire from './lua/expire.lua';
import instant from './lua/instant.lua';
import now from './lua/now.lua';
// ACQUIRE's own functions.
import admit from './lua/admit.lua';
import check from './lua/check.lua';
import confirm from './lua/confirm.lua';
import deny from './lua/deny.lua';
import enlist from './lua/enlist.lua';
import extra from './lua/extra.lua';
import fair from './lua/fair.lua';
import freed from './lua/freed.lua';
import grant from './lua/grant.lua';
import limits from './lua/limits.lua';
import replica from './lua/replica.lua';
import seen from './lua/seen.lua';
// The scripts' bodies.
import acquire from './lua/acquire.lua';
import acquireMany from './lua/acquire-many.lua';
import arrivals from './lua/arrivals.lua';
import counts from './lua/counts.lua';
import feedback from './lua/feedback.lua';
import hello from './lua/hello.lua';
import late from './lua/late.lua';
import probe from './lua/probe.lua';
import release from './lua/release.lua';
import restore from './lua/restore.lua';
import update from './lua/update.lua';

// ACQUIRE's own functions, each after those it calls.
const admission = [confirm, seen, limits, fair, freed, check, enlist, deny, extra, grant, admit];

/** Grants permits for one task on one or more limits, all or none (lua/acquire.lua). */
export const ACQUIRE = [instant, now, drop, expire, config, away, epoch, replica, ...admission, acquire].join('');

/** Grants permits for several tasks of one process on a budget, each as ACQUIRE does (lua/acquire-many.lua). */
export const ACQUIRE_MANY = [instant, now, drop, expire, config, away, epoch, replica, ...admission, acquireMany].join(
  '',
);

/** What a process measured of the way to the exchange, told without asking for permits (lua/arrivals.lua). */
export const ARRIVALS = [instant, now, config, confirm, arrivals].join('');

/** A process says it is here, with what it sent on local shares (lua/hello.lua). */
export const HELLO = [instant, now, drop, expire, count, config, epoch, hello].join('');

/** Moves permits a process may have sent after their score to an entry of their own (lua/late.lua). */
export const LATE = [instant, now, drop, expire, count, config, late].join('');

/** Whether Redis answers; changes nothing (lua/probe.lua). */
export const PROBE = probe;

/** Ends a grant on one limit, giving back what was not sent (lua/release.lua). */
export const RELEASE = release;

/** What the exchange said, for every process: a pause and a hold (lua/feedback.lua). */
export const FEEDBACK = [instant, now, drop, expire, config, feedback].join('');

/** Adds back what a process sent that Redis may have lost (lua/restore.lua). */
export const RESTORE = [instant, now, config, epoch, replica, restore].join('');

/** A new N and W for every process (lua/update.lua). */
export const UPDATE = update;

/** Writes a batch of an account's counts and reads the totals back (lua/counts.lua). */
export const COUNTS = [instant, counts].join('');
