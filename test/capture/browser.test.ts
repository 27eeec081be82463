/**
 * The capture module runs without Node: bundled for the browser by esbuild and run in a bare VM context
 * (no Buffer, no process, no require), it reads a pcapng and decodes packets; the .mmdb reader says it
 * needs a Buffer implementation instead of failing.
 */
import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { createContext, runInContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { fixtureBytes } from './helpers.js';

const entry = fileURLToPath(new URL('../../src/capture/index.ts', import.meta.url));

describe('browser', () => {
  it('bundles for the browser and reads + decodes in a context without Node globals', async () => {
    const out = await build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'iife', globalName: 'capture', write: false, logLevel: 'silent', external: ['mmdb-lib'] });
    const code = out.outputFiles[0]!.text;
    const ctx = createContext({ input: Array.from(fixtureBytes('two-interfaces.pcapng')), TextEncoder });
    runInContext(code, ctx);
    expect(runInContext('typeof Buffer + typeof process + typeof require', ctx)).toBe('undefinedundefinedundefined');
    const result = await runInContext(
      `(async () => {
        const { records, summary } = await capture.readCaptureAll(Uint8Array.from(input));
        const packets = records.map((r) => capture.decodePacket(r).packet);
        const mmdb = await capture.geoIpFromMmdb(new Uint8Array(8));
        return JSON.stringify({ n: records.length, diags: summary.diagnostics.length, src: packets[0]['ip.src'], last: packets.at(-1)['ip.src'], mmdb: mmdb.diagnostics.map((d) => d.code) });
      })()`,
      ctx,
    );
    expect(JSON.parse(result as string)).toEqual({ n: 34, diags: 0, src: '192.0.2.1', last: '172.16.0.3', mmdb: ['capture-mmdb-unavailable'] });
  });
});
