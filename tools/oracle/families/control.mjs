// Oracle cases of the control-flow operators (spec: graph-runtime.md §8): If with branches of different output
// shapes reading outer values, Loop with trip count and/or condition, carried values that change shape every
// iteration, scan outputs, zero iterations, an If nested in a Loop body that reads the main graph (a capture two
// levels deep), Scan at opsets 9+ with axes and directions on inputs and outputs, and Scan 8 with its batch axis and
// sequence lengths. The bodies use exact operators only (Add, Sub, Mul, Concat, Cast, Greater, Less), so every
// case is checked bit for bit in both modes.

const f32 = (rng, n, scale = 2) => Float32Array.from({ length: n }, () => Math.fround(rng.normal() * scale));
const scalar = (name, type, value) => ({ name, type, dims: [], data: type === 'int64' ? BigInt64Array.of(BigInt(value)) : type === 'bool' ? Uint8Array.of(value ? 1 : 0) : Float32Array.of(value) });
const t = (name, type, dims) => ({ name, type, dims });
const product = (dims) => dims.reduce((a, b) => a * b, 1);
const base = { check: 'bits', exact: true };

// If: the then branch adds two outer values, the else branch stacks X on itself (another output shape) and
// multiplies by a constant of its own.
function ifCase(rng, index) {
  const dims = [rng.int(1, 4), rng.int(1, 5)];
  const cond = index % 2 === 0;
  const opset = rng.pick([11, 13, 16, 19]);
  return {
    ...base,
    id: `If/${index}/${cond ? 'then' : 'else'}/opset${opset}`,
    opset,
    nodes: [{
      op: 'If', inputs: ['c'], outputs: ['y'], attrs: {
        then_branch: { body: { nodes: [{ op: 'Add', inputs: ['x', 'b'], outputs: ['t'] }], inputs: [], outputs: [t('t', 'float32')] } },
        else_branch: {
          body: {
            nodes: [
              { op: 'Concat', inputs: ['x', 'x'], outputs: ['xx'], attrs: { axis: 0 } },
              { op: 'Mul', inputs: ['xx', 'k'], outputs: ['e'] },
            ],
            inputs: [], outputs: [t('e', 'float32')],
            initializers: [{ name: 'k', type: 'float32', dims: [1], data: Float32Array.of(Math.fround(rng.uniform(-2, 2))) }],
          },
        },
      },
    }],
    inputs: [scalar('c', 'bool', cond), { name: 'x', type: 'float32', dims, data: f32(rng, product(dims)) },
      { name: 'b', type: 'float32', dims: [dims[1]], data: f32(rng, dims[1]) }],
    outputs: [t('y', 'float32')],
  };
}

// Loop with a trip count: each iteration adds or subtracts X (a main-graph value read by an If inside the body)
// depending on the iteration number, scales by S, and emits the accumulator as a scan output. Zero iterations too.
function loopNestedCase(rng, index) {
  const n = rng.int(1, 6);
  const trips = index % 4 === 0 ? 0 : rng.int(1, 5);
  const opset = rng.pick([11, 13, 16]);
  const body = {
    nodes: [
      { op: 'Cast', inputs: ['i'], outputs: ['fi'], attrs: { to: 1 } },
      { op: 'Greater', inputs: ['fi', 'h'], outputs: ['sel'] },
      {
        op: 'If', inputs: ['sel'], outputs: ['r'], attrs: {
          then_branch: { body: { nodes: [{ op: 'Add', inputs: ['acc', 'x'], outputs: ['ta'] }], inputs: [], outputs: [t('ta', 'float32')] } },
          else_branch: { body: { nodes: [{ op: 'Sub', inputs: ['acc', 'x'], outputs: ['ea'] }], inputs: [], outputs: [t('ea', 'float32')] } },
        },
      },
      { op: 'Mul', inputs: ['r', 's'], outputs: ['acc2'] },
      { op: 'Identity', inputs: ['cond'], outputs: ['cond2'] },
      { op: 'Add', inputs: ['acc2', 'fi'], outputs: ['emit'] },
    ],
    inputs: [t('i', 'int64', []), t('cond', 'bool', []), t('acc', 'float32', [n])],
    outputs: [t('cond2', 'bool', []), t('acc2', 'float32', [n]), t('emit', 'float32', [n])],
  };
  const a0 = { name: 'a0', type: 'float32', dims: [n], data: f32(rng, n) };
  // graph-runtime.md §8: a scan output of a loop that never ran is an empty [0] tensor of the declared type;
  // ONNX Runtime shapes it [0, n] from the body's declared output shape.
  const deviation = trips > 0 ? undefined : {
    why: 'a Loop that never ran gives an empty [0] scan output (graph-runtime.md §8)',
    expect: [{ ...a0, name: 'a' }, { name: 'scan', type: 'float32', dims: [0], data: new Float32Array(0) }],
  };
  return {
    ...base,
    deviation,
    id: `Loop/${index}/nested-if/trips${trips}/opset${opset}`,
    opset,
    nodes: [{ op: 'Loop', inputs: ['m', 'c', 'a0'], outputs: ['a', 'scan'], attrs: { body: { body } } }],
    inputs: [scalar('m', 'int64', trips), scalar('c', 'bool', true), a0,
      { name: 'x', type: 'float32', dims: [n], data: f32(rng, n) }, scalar('h', 'float32', Math.fround(rng.uniform(0, 3)))],
    initializers: [{ name: 's', type: 'float32', dims: [1], data: Float32Array.of(Math.fround(rng.uniform(0.5, 1.5))) }],
    outputs: [t('a', 'float32'), t('scan', 'float32')],
  };
}

// Loop driven by its condition only (no trip count): the carried vector grows by one element per iteration
// until the iteration number reaches a limit, so every iteration has a new shape.
function loopGrowingCase(rng, index) {
  const limit = rng.int(0, 6);
  const withTrip = index % 3 === 2;
  const opset = rng.pick([13, 16]);
  const body = {
    nodes: [
      { op: 'Cast', inputs: ['i'], outputs: ['fi'], attrs: { to: 1 } },
      { op: 'Unsqueeze', inputs: ['fi', 'zero'], outputs: ['fi1'] },
      { op: 'Concat', inputs: ['v', 'fi1'], outputs: ['v2'], attrs: { axis: 0 } },
      { op: 'Less', inputs: ['fi', 'lim'], outputs: ['more'] },
    ],
    inputs: [t('i', 'int64', []), t('cond', 'bool', []), t('v', 'float32', null)],
    outputs: [t('more', 'bool', []), t('v2', 'float32', null)],
    initializers: [{ name: 'zero', type: 'int64', dims: [1], data: BigInt64Array.of(0n) }],
  };
  const trips = rng.int(1, 8);
  return {
    ...base,
    id: `Loop/${index}/growing/limit${limit}${withTrip ? `/trips${trips}` : ''}/opset${opset}`,
    opset,
    nodes: [{ op: 'Loop', inputs: [withTrip ? 'm' : '', 'c', 'v0'], outputs: ['v'], attrs: { body: { body } } }],
    inputs: [...(withTrip ? [scalar('m', 'int64', trips)] : []), scalar('c', 'bool', limit > 0),
      { name: 'v0', type: 'float32', dims: [2], data: f32(rng, 2) }, scalar('lim', 'float32', limit)],
    outputs: [t('v', 'float32')],
  };
}

// Scan (opset 9+): two states, two scan inputs of rank 2 or 3 with their own axes and directions, two scan outputs
// placed along chosen axes and directions.
function scanCase(rng, index) {
  const opset = rng.pick([9, 11, 16, 19]);
  const length = rng.int(1, 4);
  const slice = [rng.int(1, 3), rng.int(1, 4)];
  const negative = opset >= 11 && rng.bool();
  const scanInput = (name) => {
    const axis = rng.int(0, slice.length);
    const dims = [...slice];
    dims.splice(axis, 0, length);
    return { name, dims, axis: negative ? axis - dims.length : axis, reverse: rng.int(0, 1) };
  };
  const inputs = [scanInput('u'), scanInput('w')];
  const outAxes = [rng.int(0, slice.length), rng.int(0, slice.length)];
  const body = {
    nodes: [
      { op: 'Add', inputs: ['s', 'ut'], outputs: ['s2'] },
      { op: 'Mul', inputs: ['p', 'wt'], outputs: ['p2'] },
      { op: 'Sub', inputs: ['s2', 'p2'], outputs: ['d'] },
      { op: 'Add', inputs: ['d', 'ut'], outputs: ['e'] },
    ],
    inputs: [t('s', 'float32', slice), t('p', 'float32', slice), t('ut', 'float32', slice), t('wt', 'float32', slice)],
    outputs: [t('s2', 'float32', slice), t('p2', 'float32', slice), t('d', 'float32', slice), t('e', 'float32', slice)],
  };
  const attrs = {
    body: { body }, num_scan_inputs: 2,
    scan_input_axes: inputs.map((i) => i.axis), scan_input_directions: inputs.map((i) => i.reverse),
    scan_output_axes: outAxes.map((a) => (negative ? a - (slice.length + 1) : a)), scan_output_directions: [rng.int(0, 1), rng.int(0, 1)],
  };
  const features = [`L${length}`, `in${attrs.scan_input_axes}`, `dir${attrs.scan_input_directions}`, `out${attrs.scan_output_axes}`,
    `odir${attrs.scan_output_directions}`];
  return {
    ...base,
    id: `Scan/${index}/${features.join('/')}/opset${opset}`,
    opset,
    nodes: [{ op: 'Scan', inputs: ['s0', 'p0', 'u', 'w'], outputs: ['s', 'p', 'ys', 'yd'], attrs }],
    inputs: [
      { name: 's0', type: 'float32', dims: slice, data: f32(rng, product(slice)) },
      { name: 'p0', type: 'float32', dims: slice, data: f32(rng, product(slice), 1) },
      ...inputs.map((i) => ({ name: i.name, type: 'float32', dims: i.dims, data: f32(rng, product(i.dims), 1) })),
    ],
    outputs: [t('s', 'float32'), t('p', 'float32'), t('ys', 'float32'), t('yd', 'float32')],
  };
}

// Scan opset 8: a batch axis first on every input and output, optional per-batch sequence lengths, directions.
function scan8Case(rng, index) {
  const batch = rng.int(1, 3), length = rng.int(1, 4), n = rng.int(1, 4);
  const withLengths = index % 2 === 1;
  const reverse = rng.int(0, 1);
  const lens = BigInt64Array.from({ length: batch }, () => BigInt(rng.int(1, length)));
  const body = {
    nodes: [{ op: 'Add', inputs: ['s', 'xt'], outputs: ['s2'] }, { op: 'Mul', inputs: ['s2', 'xt'], outputs: ['y'] }],
    inputs: [t('s', 'float32', [n]), t('xt', 'float32', [n])],
    outputs: [t('s2', 'float32', [n]), t('y', 'float32', [n])],
  };
  return {
    ...base,
    id: `Scan8/${index}/b${batch}L${length}n${n}/dir${reverse}${withLengths ? '/lens' : ''}`,
    opset: 8,
    nodes: [{ op: 'Scan', inputs: [withLengths ? 'lens' : '', 's0', 'x'], outputs: ['s', 'y'], attrs: { body: { body }, num_scan_inputs: 1, directions: [reverse] } }],
    inputs: [
      ...(withLengths ? [{ name: 'lens', type: 'int64', dims: [batch], data: lens }] : []),
      { name: 's0', type: 'float32', dims: [batch, n], data: f32(rng, batch * n) },
      { name: 'x', type: 'float32', dims: [batch, length, n], data: f32(rng, batch * length * n, 1) },
    ],
    outputs: [t('s', 'float32'), t('y', 'float32')],
  };
}

export function* cases(rng) {
  for (let i = 0; i < 16; ++i) yield ifCase(rng, i);
  for (let i = 0; i < 16; ++i) yield loopNestedCase(rng, i);
  for (let i = 0; i < 12; ++i) yield loopGrowingCase(rng, i);
  for (let i = 0; i < 24; ++i) yield scanCase(rng, i);
  for (let i = 0; i < 12; ++i) yield scan8Case(rng, i);
}
