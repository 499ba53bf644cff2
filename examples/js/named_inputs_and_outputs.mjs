// Named inputs and outputs: scorer.onnx has two inputs and two outputs. List them, pass named tensors in any order
// and read the outputs back as tensors. Usage: node examples/js/named_inputs_and_outputs.mjs [MODELS_DIR].
import path from 'node:path';
import { Session, Tensor } from '../../npm/dist/index.mjs';

// "[batch, 3]": fixed extents as numbers, symbolic ones by name, unknown ones as "?".
const declaredDims = (info) => (info.dims === null ? '[?...]' : `[${info.dims.map((d) => d ?? '?').join(', ')}]`);
// "[2,2]: 4.5, 6.5, 10.5, 12.5"
const shapeAndValues = (t) => `[${t.dims.join(',')}]: ${Array.from(t.data).join(', ')}`;

const models = process.argv[2] ?? 'examples/models';
const session = await Session.create(path.join(models, 'scorer.onnx'));
for (const i of session.inputs) console.log(`in  ${i.name}: ${i.type} ${declaredDims(i)}`);
for (const o of session.outputs) console.log(`out ${o.name}: ${o.type} ${declaredDims(o)}`);

const features = new Tensor('float32', new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
const bias = new Tensor('float32', new Float32Array([0.5, 1.5]), [1, 2]);

// Inputs by name in any order; the outputs asked for come back by name.
const { score, best } = await session.run({ bias, features }, ['score', 'best']);
console.log(`score ${shapeAndValues(score)}`);
console.log(`best  ${shapeAndValues(best)}`);
session.release();
