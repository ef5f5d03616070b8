// A .lua file imported is its text: tsup loads it so (tsup.config.ts), vitest by a plugin
// (vitest.config.ts), and a process run with tsx by scripts/lua.ts.
declare module '*.lua' {
  const text: string;
  export default text;
}
