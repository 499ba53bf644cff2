#!/usr/bin/env node
// Records the ONNX Runtime oracle cases: `node tools/oracle/record.mjs <family>|all` writes
// testdata/oracle/<family>.json.gz from tools/oracle/families/<family>.mjs, prints the case count per operator and
// every case ONNX Runtime refused (those are dropped). Running it twice gives identical files.
//
// To look for more differences, `--seed <text> --out <dir>` records the same generators with another random stream
// elsewhere; ONEMODEL_ORACLE_DIR=<dir> makes the native tests read that directory.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { recordFamily } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const FAMILIES = ['elementwise', 'shape', 'norms', 'recurrent', 'control', 'quant', 'vision-signal'];
const USAGE = `usage: node tools/oracle/record.mjs <${FAMILIES.join('|')}|all> [--seed <text> --out <dir>]`;

function parse(args) {
  const options = { which: null, seed: null, out: path.join(root, 'testdata', 'oracle') };
  for (let i = 0; i < args.length; ++i) {
    if (args[i] === '--seed' && i + 1 < args.length) options.seed = args[++i];
    else if (args[i] === '--out' && i + 1 < args.length) options.out = path.resolve(args[++i]);
    else if (!options.which && (args[i] === 'all' || FAMILIES.includes(args[i]))) options.which = args[i];
    else return null;
  }
  // Another seed must not overwrite the committed files.
  if (!options.which || (options.seed !== null && !args.includes('--out'))) return null;
  return options;
}

async function main(args) {
  const options = parse(args);
  if (!options) {
    console.error(USAGE);
    return 2;
  }
  const families = options.which === 'all' ? FAMILIES : [options.which];
  let failed = false;
  for (const family of families) {
    const source = path.join(here, 'families', `${family}.mjs`);
    if (!fs.existsSync(source)) {
      console.error(`${family}: ${path.relative(root, source)} does not exist`);
      failed ||= options.which !== 'all';
      continue;
    }
    const module = await import(pathToFileURL(source).href);
    const out = path.join(options.out, `${family}.json.gz`);
    const { perOp, refused } = await recordFamily(family, module, out, console.log, options.seed ?? undefined);
    for (const [op, n] of [...perOp].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)))
      console.log(`  ${op.padEnd(24)} ${n}`);
    if (refused.length) {
      console.log(`  refused by ONNX Runtime (${refused.length}, not recorded):`);
      for (const r of refused) console.log(`    ${r.id}: ${r.message}`);
    }
  }
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
