// Types of the onemodel npm package (web/onemodel.mjs).

/**
 * Element type names; int64/uint64 use BigInt arrays, bool holds 0/1 bytes, float16/bfloat16 hold bit patterns and
 * string holds a plain array of JS strings (as in onnxruntime-web).
 */
export type TensorType =
  | 'float32' | 'float64'
  | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64'
  | 'bool' | 'float16' | 'bfloat16' | 'string';

export interface TensorDataTypes {
  float32: Float32Array;
  float64: Float64Array;
  int8: Int8Array;
  uint8: Uint8Array;
  int16: Int16Array;
  uint16: Uint16Array;
  int32: Int32Array;
  uint32: Uint32Array;
  int64: BigInt64Array;
  uint64: BigUint64Array;
  bool: Uint8Array;
  float16: Uint16Array;
  bfloat16: Uint16Array;
  string: string[];
}

export type TensorData = TensorDataTypes[TensorType];

/**
 * A dense row-major tensor. The data is the caller's array (inputs) or a fresh copy (outputs). String elements cross
 * as UTF-8: a lone surrogate becomes U+FFFD, and so do output bytes that are not UTF-8.
 */
export class Tensor<T extends TensorType = TensorType> {
  /**
   * Numeric `data` may be a plain array (converted; not for float16/bfloat16); string data is kept as given.
   * `dims` defaults to `[data.length]`.
   */
  constructor(
    type: T,
    data: TensorDataTypes[T] | (T extends 'string' ? readonly string[] : readonly (number | bigint | boolean)[]),
    dims?: readonly number[],
  );
  /** The type follows the array: Float32Array is float32, BigInt64Array is int64, a non-empty string[] is string... */
  constructor(data: TensorData, dims?: readonly number[]);
  readonly type: T;
  readonly data: TensorDataTypes[T];
  readonly dims: readonly number[];
  /** Number of elements. */
  readonly size: number;
}

/**
 * A declared input or output. A dimension is a fixed extent, a symbolic name, or null when unknown. A sequence or an
 * optional travels packed in one uint8 tensor: its type is 'uint8' and its dims null.
 */
export interface TensorInfo {
  readonly name: string;
  /** 'sequence': the value is an array of Tensors. 'optional': null, a Tensor, or an array of Tensors. */
  readonly kind: 'tensor' | 'sequence' | 'optional';
  readonly type: TensorType;
  /** null when the rank is unknown. */
  readonly dims: readonly (number | string | null)[] | null;
}

export interface SessionOptions {
  /** 'fast' (default): fastest kernels. 'exact': the same output bits on every target, kernel path and thread count. */
  mode?: 'fast' | 'exact';
  /** Threads per operator including the caller; 0 (default) = all cores. The default wasm build is single-threaded. */
  intraOpThreads?: number;
  /** Kernel path to force: 'scalar' or 'v128' in wasm. Default: ONEMODEL_KERNELS in Node, else the best available. */
  kernels?: string;
  /** Execution plans kept per session, one per set of input shapes (default 16). */
  maxCachedPlans?: number;
  /** Graph passes to run (default 'all'); exact mode skips those that change bits. */
  optimizationLevel?: 'none' | 'basic' | 'all';
  /**
   * 'float32' (default). 'binary16' / 'bfloat16': the constant weights of MatMul, Gemm and Conv (1024 values or
   * more, read by nothing else) are kept rounded to that format and widened for each run; results equal a model
   * whose weights were rounded beforehand.
   */
  weightStorage?: 'float32' | 'binary16' | 'bfloat16';
}

/** A tensor, a sequence (an array of tensors) or an optional (null, a tensor or an array). */
export type SessionValue = Tensor | readonly Tensor[] | null;

/** Model bytes, a path (Node) or a URL (fetched). */
export type ModelSource = Uint8Array | ArrayBuffer | ArrayBufferView | string | URL;

export class Session {
  private constructor();
  /** Loads and compiles a model; rejects with OneModelError (e.g. kind 'UnsupportedOperator', 'Malformed'). */
  static create(source: ModelSource, options?: SessionOptions): Promise<Session>;
  readonly inputs: readonly TensorInfo[];
  readonly outputs: readonly TensorInfo[];
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** 'scalar' or 'v128' in wasm. */
  readonly kernelPath: string;
  /**
   * Every input once, by name; resolves to the outputs named in `fetches` (default: all), each a new Tensor. Sequence
   * inputs and outputs are arrays of Tensors (an empty array feeds a float32 sequence; string elements are refused
   * with kind 'Unsupported'); optional ones are null, a Tensor or an array. Name the result type `Out` for a model
   * with such outputs.
   */
  run<Out extends Record<string, SessionValue> = Record<string, Tensor>>(
    feeds: Record<string, SessionValue>,
    fetches?: readonly string[],
  ): Promise<Out>;
  /** Frees the weights; later calls throw OneModelError with kind 'Disposed'. */
  release(): void;
}

/** The happy path: one input, one output, arrays in and out. */
export class Model {
  private constructor();
  static load(source: ModelSource, options?: SessionOptions): Promise<Model>;
  /** The session behind the model (released together with it). */
  readonly session: Session;
  /**
   * Runs the model on one input. Without `shape` the input's declared dims are used, one unknown extent being
   * inferred from the value count. Returns the output as float32.
   */
  run(values: Float32Array | BigInt64Array | Int32Array | readonly number[], shape?: readonly number[]): Float32Array;
  release(): void;
}

/** A failure reported by the library, with the fields of the C++ exception. */
export class OneModelError extends Error {
  readonly name: 'OneModelError';
  /** The C++ class: 'ImportError', 'SessionError', 'Error' (other library errors) or 'InternalError'. */
  readonly category: 'ImportError' | 'SessionError' | 'Error' | 'InternalError';
  /**
   * ImportError: 'Malformed' | 'InvalidModel' | 'Unsupported' | 'ExternalData' | 'Io'.
   * SessionError: 'UnsupportedOperator' | 'ExactModeUnavailable' | 'InvalidModel' | 'Unsupported' | 'InvalidInput' |
   * 'Disposed'. InternalError: 'OutOfMemory' | 'Internal'.
   */
  readonly kind: string;
  /** SessionError: every operator involved, as "Type (opset N)" or "Type"; empty otherwise. */
  readonly operators: readonly string[];
  /** SessionError: the node involved, if any. */
  readonly node?: string;
  /** ImportError: the file or stream being read, if known. */
  readonly inputName?: string;
  /** ImportError: byte offset from the start of the input, if known. */
  readonly offset?: number;
  /** ImportError: field path such as "ModelProto.graph.node[3].attribute[1].t", if known. */
  readonly fieldPath?: string;
  /** ImportError: the message without the location. */
  readonly detail?: string;
}

/**
 * The .onemodel form of a model (docs/format.md): byte-identical to what the native `onemodel convert` writes for
 * the same model. Session.create and Model.load accept either format. Throws OneModelError (ImportError).
 */
export function convertToOneModel(source: ModelSource): Promise<Uint8Array>;

/**
 * CTC decoding of recogniser and speech-model outputs (docs/ctc.md), in plain JavaScript with the same bits as the
 * C++ `onemodel::ctc`. Scores are float32 `[steps, classes]` (batch: `[batch, steps, classes]`), e.g. a Tensor.
 * Bad arguments throw RangeError (TypeError for a wrong kind of value) with a message starting "ctc: ".
 */
export declare namespace ctc {
  /** Anything with float32 data and dims, such as a 'float32' Tensor. */
  interface Scores {
    readonly data: Float32Array;
    readonly dims: readonly number[];
  }
  interface GreedyOptions {
    /** Raw logits (default) or natural-log probabilities already normalised per step. */
    scores?: 'logits' | 'logProbabilities';
    /** The blank class, default 0. */
    blank?: number;
  }
  interface BatchOptions {
    /** Real steps of each batch item (the rest is padding); default: all of them. */
    lengths?: readonly number[];
  }
  interface BeamOptions extends GreedyOptions {
    /** Prefixes kept per step, 1 to 4096 (default 16); steps * beamWidth * (classes - 1) + 1 must not exceed 2^24. */
    beamWidth?: number;
    /** Hypotheses returned, 1 to beamWidth (default 1). */
    topN?: number;
  }
  /** One emitted label over the steps [firstStep, lastStep]. */
  interface Run {
    label: number;
    firstStep: number;
    lastStep: number;
    /** The largest probability of the label over the run (a float32 value). */
    confidence: number;
  }
  interface GreedyResult {
    labels: number[];
    runs: Run[];
    /** Mean of the run confidences (float32 arithmetic); 0 when nothing is emitted. */
    confidence: number;
    /** Probability of each step's best class, blank included. */
    stepProbabilities: Float32Array;
  }
  interface Hypothesis {
    labels: number[];
    /** Natural log of the summed probability of every alignment giving `labels`. */
    logProbability: number;
    /** exp(logProbability / labels.length); 0 for the empty text. */
    confidence: number;
  }
  function greedyDecode(scores: Scores, options?: GreedyOptions): GreedyResult;
  function greedyDecodeBatch(scores: Scores, options?: GreedyOptions & BatchOptions): GreedyResult[];
  /** Up to topN hypotheses, best first. NaN and +inf scores are refused, and so is a step of logits all -inf. */
  function beamSearch(scores: Scores, options?: BeamOptions): Hypothesis[];
  function beamSearchBatch(scores: Scores, options?: BeamOptions & BatchOptions): Hypothesis[][];
  /** The beam search's deterministic double-precision exp, ln and log-add. */
  const deterministicMath: {
    readonly exp: (x: number) => number;
    readonly ln: (x: number) => number;
    readonly logAdd: (a: number, b: number) => number;
  };
}

/** wai-ops/1 integer graphs (docs/wai-ops.md). Elements are int64: the reference profile acc64 allows any int64. */
export namespace wai {
  type Refusal = 'model_mismatch' | 'too_large' | 'field_range' | 'geometry_mismatch';
  /** A tensor [C, H, W] in CHW order. */
  interface IntTensor {
    shape: [number, number, number];
    data: BigInt64Array;
  }
  interface IntTensorInput {
    shape: [number, number, number];
    data: BigInt64Array | Int32Array | Array<number | bigint>;
  }
  type RunResult =
    | { ok: true; outputs: IntTensor[] }
    | { ok: false; refusal: Refusal; message: string };
  /** The state inputs a sequence carries; a new State starts a new sequence. */
  class State {
    readonly started: boolean;
    readonly tensors: IntTensor[];
  }
  class Graph {
    /** Throws OneModelError (category 'RefusalError', kind the refusal code, loadStep 1..8) for a refused graph. */
    static load(
      source: Uint8Array | ArrayBuffer | ArrayBufferView | string | URL,
      options?: { profile?: 'acc64' | 'acc32' | 'none' },
    ): Promise<Graph>;
    readonly dataInputs: number;
    readonly stateInputs: number;
    readonly scalars: number;
    readonly outputs: number;
    /** The bounds certificate: its canonical JSON text and the profile verdicts. */
    certify(): { json: string; acc64: boolean; acc32: boolean; npu: boolean };
    release(): void;
  }
  class IntSession {
    constructor(graph: Graph);
    /** One decode; `state` changes only when the decode completes. */
    run(inputs: IntTensorInput[], scalars?: BigInt64Array | Int32Array | Array<number | bigint>, state?: State): RunResult;
    release(): void;
  }
}
