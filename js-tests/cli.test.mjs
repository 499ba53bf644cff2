// `npx onemodel` is the native CLI compiled to wasm: for the same arguments it must print the same bytes and exit
// with the same status as the native build (tools/build-native.sh, or ONEMODEL_NATIVE_CLI).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { nativeCli, repoRoot, wasmCliBin } from './helpers/paths.mjs';

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: repoRoot, env: { ...process.env, ...env }, encoding: 'buffer' });
  return { status: result.status, stdout: result.stdout.toString('latin1'), stderr: result.stderr.toString('latin1') };
}
const wasmCli = (args, env) => run(process.execPath, [wasmCliBin, ...args], env);

const classifier = 'examples/models/classifier.onnx';
const scorer = 'examples/models/scorer.onnx';

test('npx onemodel info describes a model', () => {
  const { status, stdout, stderr } = wasmCli(['info', classifier]);
  expect(stderr).toBe('');
  expect(status).toBe(0);
  expect(stdout).toContain('model: classifier.onnx');
  expect(stdout).toMatch(/^ {2}x: F32 /m);
});

test('ONEMODEL_* variables reach the wasm CLI and exact hashes agree across its kernel paths', () => {
  const args = ['run', classifier, '--mode', 'exact', '--hash'];
  const scalar = wasmCli(args, { ONEMODEL_KERNELS: 'scalar' });
  const v128 = wasmCli(args, { ONEMODEL_KERNELS: 'v128' });
  expect(scalar.status).toBe(0);
  expect(scalar.stdout).toMatch(/^probs [0-9a-f]{64}\n$/);
  expect(v128.stdout).toBe(scalar.stdout);
  const bogus = wasmCli(args, { ONEMODEL_KERNELS: 'avx512' });
  expect(bogus.status).not.toBe(0);
});

// A version 1.0 .npy image of little-endian float32 values (header padded to 64 bytes, as NumPy writes it).
function npyFloat32(values, shape) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims}), }`;
  const header = dict.padEnd(64 - 10 - 1) + '\n';
  const prefix = Buffer.concat([Buffer.from([0x93]), Buffer.from('NUMPY'), Buffer.from([1, 0, header.length, 0])]);
  return Buffer.concat([prefix, Buffer.from(header, 'latin1'), Buffer.from(Float32Array.from(values).buffer)]);
}

// Skipped on a developer machine without a native build; under CI a missing binary fails every comparison.
describe.skipIf(!existsSync(nativeCli) && !process.env.CI)('byte-identical to the native CLI', () => {
  let dir;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'onemodel-cli-'));
    writeFileSync(path.join(dir, 'features.npy'), npyFloat32([1, 2, 3, 4, 5, 6], [2, 3]));
    writeFileSync(path.join(dir, 'bias.npy'), npyFloat32([0.5, 1.5], [1, 2]));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('run with .npy inputs and --out writes the same files', () => {
    const outputs = {};
    for (const [name, runner] of [['wasm', wasmCli], ['native', (args) => run(nativeCli, args)]]) {
      const out = path.join(dir, name);
      const args = ['run', scorer, '--mode', 'exact', '--input', `features=${path.join(dir, 'features.npy')}`,
        '--input', `bias=${path.join(dir, 'bias.npy')}`, '--out', out];
      const result = runner(args);
      expect(result.status, result.stderr).toBe(0);
      outputs[name] = {
        stdout: result.stdout,
        files: Object.fromEntries(readdirSync(out).sort().map((f) => [f, readFileSync(path.join(out, f))])),
      };
    }
    expect(outputs.wasm.stdout).toContain('4.5000, 6.5000, 10.5000, 12.5000');
    expect(Object.keys(outputs.wasm.files).length).toBeGreaterThan(0);
    expect(outputs.wasm).toEqual(outputs.native);
  });

  const cases = [
    ['info', classifier],
    ['info', scorer],
    ['run', classifier, '--mode', 'exact', '--hash'],
    ['run', scorer, '--mode', 'exact', '--hash', '--kernels', 'scalar'],
    ['run', scorer, '--mode', 'exact'],
    ['run', 'examples/models/unsupported.onnx'],
    ['run', 'examples/models/no-such-model.onnx'],
    ['frobnicate'],
  ];
  test.each(cases.map((args) => [args.join(' '), args]))('onemodel %s', (_, args) => {
    const wasm = wasmCli(args);
    const native = run(nativeCli, args);
    expect(wasm).toEqual(native);
  });
});
