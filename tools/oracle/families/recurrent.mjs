// Oracle cases of RNN, GRU and LSTM (spec: ops-recurrent.md): every direction, batch 1 and more, hidden sizes off the
// lane widths, sequence_lens with zero-length rows, initial states, peepholes, clip, activation lists with separate
// alpha/beta cursors, input_forget, linear_before_reset, constant and fed weights, at
// opsets 7, 14 and 22. Layout 1 is left to the native tests: ONNX Runtime's CPU kernels refuse it.

const TOL = 1e-4;
const OPSETS = [7, 14, 22];
const HIDDEN = [1, 2, 3, 4, 5, 7, 8, 9, 16, 17];
const ACTIVATIONS = ['Sigmoid', 'Tanh', 'Relu', 'Affine', 'LeakyRelu', 'ThresholdedRelu', 'ScaledTanh', 'HardSigmoid',
  'Elu', 'Softsign', 'Softplus'];
const TAKES_ALPHA = ['Affine', 'LeakyRelu', 'ThresholdedRelu', 'ScaledTanh', 'HardSigmoid', 'Elu'];
const TAKES_BETA = ['Affine', 'ScaledTanh', 'HardSigmoid'];
const GATES = { RNN: 1, GRU: 3, LSTM: 4 };
const PER_DIRECTION = { RNN: 1, GRU: 2, LSTM: 3 };

function floats(rng, n, scale) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) out[i] = rng.normal() * scale;
  return out;
}

// One random layer of `op`; `variant` picks the feature mix so every feature appears in every operator.
function layer(rng, op, variant) {
  const direction = ['forward', 'reverse', 'bidirectional'][variant % 3];
  const dirs = direction === 'bidirectional' ? 2 : 1;
  const seq = rng.int(1, 5);
  const batch = variant % 4 === 0 ? 1 : rng.int(2, 4);
  const input = rng.int(1, 9);
  const hidden = rng.pick(HIDDEN);
  const gh = GATES[op] * hidden;
  const opset = rng.pick(OPSETS);
  const constantWeights = rng.bool();
  const inputs = [];
  const initializers = [];
  const add = (name, type, dims, data, constant = false) => {
    (constant ? initializers : inputs).push({ name, type, dims, data });
    return name;
  };
  const names = [add('X', 'float32', [seq, batch, input], floats(rng, seq * batch * input, rng.pick([0.5, 1, 3])))];
  names.push(add('W', 'float32', [dirs, gh, input], floats(rng, dirs * gh * input, 0.5), constantWeights));
  names.push(add('R', 'float32', [dirs, gh, hidden], floats(rng, dirs * gh * hidden, 0.5), constantWeights));
  names.push(rng.bool(0.7) ? add('B', 'float32', [dirs, 2 * gh], floats(rng, dirs * 2 * gh, 0.5), constantWeights) : '');
  if (variant % 5 < 2) {
    const lens = new Int32Array(batch);
    for (let b = 0; b < batch; ++b) lens[b] = rng.int(0, seq);
    if (batch > 1) lens[rng.int(0, batch - 1)] = 0;
    names.push(add('L', 'int32', [batch], lens));
  } else {
    names.push('');
  }
  const state = [dirs, batch, hidden];
  names.push(rng.bool() ? add('H0', 'float32', state, floats(rng, dirs * batch * hidden, 1)) : '');
  if (op === 'LSTM') {
    names.push(rng.bool() ? add('C0', 'float32', state, floats(rng, dirs * batch * hidden, 1)) : '');
    names.push(variant % 3 !== 1 && rng.bool(0.6) ? add('P', 'float32', [dirs, 3 * hidden], floats(rng, dirs * 3 * hidden, 0.5)) : '');
  }
  while (names[names.length - 1] === '') names.pop();

  const attrs = { direction, hidden_size: hidden };
  const features = [direction, `s${seq}b${batch}i${input}h${hidden}`];
  if (variant % 6 === 1) {
    attrs.clip = { float: rng.pick([0.5, 1, 2.5]) };
    features.push('clip');
  }
  if (variant % 4 === 3) {
    // ONNX Runtime wants one set per direction (one shared set is covered by the native tests).
    const list = [];
    for (let i = 0; i < dirs * PER_DIRECTION[op]; ++i) list.push(rng.pick(ACTIVATIONS));
    attrs.activations = { strings: list };
    // One value per function that takes it: ONNX Runtime fills missing values with 0 where ops-recurrent.md takes
    // the function's own default, so the recorded cases never leave one out.
    const alpha = [], beta = [];
    for (const f of list) {
      if (TAKES_ALPHA.includes(f)) alpha.push(Math.fround(rng.uniform(0.1, 1.5)));
      if (TAKES_BETA.includes(f)) beta.push(Math.fround(rng.uniform(-0.5, 0.8)));
    }
    if (alpha.length) attrs.activation_alpha = { floats: alpha };
    if (beta.length) attrs.activation_beta = { floats: beta };
    features.push(list.join('-'));
  }
  if (op === 'GRU' && rng.bool()) {
    attrs.linear_before_reset = 1;
    features.push('lbr');
  }
  if (op === 'LSTM' && variant % 7 === 2) {
    attrs.input_forget = 1;
    features.push('input_forget');
  }
  features.push(...names.filter((n) => n && n !== 'X' && n !== 'W' && n !== 'R'));
  if (constantWeights) features.push('const');
  const outputs = op === 'LSTM' ? ['Y', 'Y_h', 'Y_c'] : ['Y', 'Y_h'];
  return {
    id: `${op}/${variant}/${features.join('/')}`,
    opset,
    nodes: [{ op, inputs: names, outputs, attrs }],
    inputs,
    initializers,
    outputs: outputs.map((name) => ({ name, type: 'float32' })),
    check: 'scaled',
    tol: TOL,
    exact: true,
  };
}

// The black-box case that settled the activation cursors (ops-recurrent.md "Activations").
function cursorCase(rng) {
  const spec = layer(rng, 'LSTM', 0);
  spec.id = 'LSTM/cursors/HardSigmoid-LeakyRelu-ScaledTanh';
  Object.assign(spec.nodes[0].attrs, {
    activations: { strings: ['HardSigmoid', 'LeakyRelu', 'ScaledTanh'] },
    activation_alpha: { floats: [0.3, 0.2, 1.2].map(Math.fround) },
    activation_beta: { floats: [0.4, 0.7].map(Math.fround) },
  });
  return spec;
}

export function* cases(rng) {
  for (const op of ['RNN', 'GRU', 'LSTM']) {
    for (let variant = 0; variant < 50; ++variant) yield layer(rng, op, variant);
  }
  yield cursorCase(rng);
}
