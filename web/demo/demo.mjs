// The browser demo: load a model (file picker or the sample classifier), run it, show the outputs and their hashes.
// Query parameters for scripted use: ?model=URL&mode=exact|fast&kernels=v128|scalar&inputs=generated&run=1 loads
// (and runs) without clicks; #status gets data-state="done" or "error" when finished.
import { OneModelError, Session, Tensor } from 'onemodel';

const SAMPLE = { url: '../../examples/models/classifier.onnx', values: { x: [5.1, 3.5, 1.4, 0.2] } };
const EDITABLE_LIMIT = 4096; // inputs with more elements are generated, not shown
const HALF_TYPES = new Set(['float16', 'bfloat16']); // bit patterns: not typed in by hand here
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

let source = null; // { name, bytes, values }
let session = null;

// `<name> <sha256 hex of the output's raw bytes>` per output, the CLI's --hash format.
async function hashLines(outputs, names) {
  return Promise.all(names.map(async (name) => {
    const { data } = outputs[name];
    const digest = await crypto.subtle.digest('SHA-256', new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    return `${name} ${Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('')}`;
  }));
}

function setStatus(text, state) {
  $('status').textContent = text;
  $('status').dataset.state = state;
}

// The CLI's generated input (docs/cli.md): floats ((i*7919 + 13) mod 2001 - 1000) / 1000, integers
// (i*7919 + 13) mod 10, bools i mod 2; symbolic extents are 1. So the hashes here match `onemodel run --hash`.
function generatedValues(type, count) {
  const values = [];
  for (let i = 0; i < count; ++i) {
    if (type === 'float32' || type === 'float64') values.push(((i * 7919 + 13) % 2001 - 1000) / 1000);
    else if (type === 'bool') values.push(i % 2);
    else values.push((i * 7919 + 13) % 10);
  }
  return values;
}

function concreteDims(info) {
  return info.dims === null ? [1] : info.dims.map((d) => (typeof d === 'number' ? d : 1));
}

function renderSignature() {
  const body = $('signature').querySelector('tbody');
  body.replaceChildren();
  for (const [role, list] of [['in', session.inputs], ['out', session.outputs]]) {
    for (const info of list) {
      const row = body.insertRow();
      const dims = info.dims ? `[${info.dims.map((d) => d ?? '?').join(', ')}]` : '?';
      for (const text of [role, info.name, info.type, dims]) row.insertCell().textContent = text;
    }
  }
  $('signature').hidden = false;
}

function renderInputs() {
  const container = $('inputs');
  container.replaceChildren();
  for (const info of session.inputs) {
    const dims = concreteDims(info);
    const count = dims.reduce((a, b) => a * b, 1);
    const values = source.values?.[info.name] ?? generatedValues(info.type, count);
    const block = document.createElement('p');
    block.append(`${info.name} [${dims.join(', ')}] `);
    if (count <= EDITABLE_LIMIT && !HALF_TYPES.has(info.type)) {
      const area = document.createElement('textarea');
      area.rows = Math.min(4, 1 + Math.floor(count / 16));
      area.value = values.join(', ');
      area.dataset.input = info.name;
      block.append(document.createElement('br'), area);
    } else {
      block.append(`(${count} generated values)`);
    }
    container.append(block);
  }
}

function feedFor(info) {
  const dims = concreteDims(info);
  const count = dims.reduce((a, b) => a * b, 1);
  const area = document.querySelector(`textarea[data-input="${CSS.escape(info.name)}"]`);
  const values = area ? area.value.split(/[\s,]+/).filter(Boolean).map(Number) : generatedValues(info.type, count);
  if (HALF_TYPES.has(info.type)) throw new Error(`${info.name}: ${info.type} inputs are not supported by this demo`);
  if (values.some(Number.isNaN)) throw new Error(`${info.name}: not a list of numbers`);
  return new Tensor(info.type, values, dims);
}

async function load() {
  session?.release();
  session = null;
  $('run').disabled = $('generated').disabled = true;
  setStatus(`Loading ${source.name}…`, 'busy');
  try {
    const options = { mode: $('mode').value, kernels: $('kernels').value };
    const started = performance.now();
    session = await Session.create(source.bytes, options);
    $('model-name').textContent = `${source.name}: ${source.bytes.length} bytes, ${options.mode} mode, ` +
      `kernels ${session.kernelPath}, loaded in ${(performance.now() - started).toFixed(1)} ms`;
    renderSignature();
    renderInputs();
    $('run').disabled = $('generated').disabled = false;
    setStatus('Ready.', 'ready');
  } catch (error) {
    showError(error);
  }
}

async function run() {
  setStatus('Running…', 'busy');
  try {
    const feeds = Object.fromEntries(session.inputs.map((info) => [info.name, feedFor(info)]));
    const started = performance.now();
    const outputs = await session.run(feeds);
    const ms = performance.now() - started;
    $('outputs').textContent = Object.entries(outputs)
      .map(([name, t]) => {
        const float = t.type === 'float32' || t.type === 'float64';
        const shown = Array.from(t.data.subarray(0, 16), (v) => (float ? v.toFixed(4) : String(v)));
        return `${name} ${t.type} [${t.dims.join(', ')}]: ${shown.join(', ')}${t.size > 16 ? ', …' : ''}`;
      })
      .join('\n');
    $('hashes').textContent = (await hashLines(outputs, session.outputNames)).join('\n');
    setStatus(`Done in ${ms.toFixed(2)} ms.`, 'done');
  } catch (error) {
    showError(error);
  }
}

function showError(error) {
  const fields = error instanceof OneModelError
    ? ` [${error.kind}${error.operators.length ? `: ${error.operators.join(', ')}` : ''}]`
    : '';
  setStatus(`${error.name}${fields}: ${error.message}`, 'error');
  console.error(error);
}

async function useSample(url = SAMPLE.url, generated = false) {
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    source = {
      name: url.split('/').pop(),
      bytes: new Uint8Array(await response.arrayBuffer()),
      values: url === SAMPLE.url && !generated ? SAMPLE.values : null,
    };
    await load();
  } catch (error) {
    showError(error);
  }
}

$('sample').addEventListener('click', () => useSample());
$('file').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  source = { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()), values: null };
  await load();
});
for (const id of ['mode', 'kernels']) $(id).addEventListener('change', () => source && load());
$('run').addEventListener('click', run);
$('generated').addEventListener('click', () => {
  source.values = null;
  renderInputs();
});

if (params.has('mode')) $('mode').value = params.get('mode');
if (params.has('kernels')) $('kernels').value = params.get('kernels');
if (params.has('model') || params.has('run')) {
  await useSample(params.get('model') ?? SAMPLE.url, params.get('inputs') === 'generated');
  if (params.has('run') && session) await run();
}
