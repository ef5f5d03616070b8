// Loads a .lua file imported as its text, as the build does (tsup.config.ts), in a process run
// with `node --import tsx --import ./scripts/lua.ts`: one that imports the Redis store's sources.
import { register } from 'node:module';

register('./lua-hooks.ts', import.meta.url);
