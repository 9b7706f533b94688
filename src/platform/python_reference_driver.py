# The driver that runs a task's reference.py for the harness (platform/python_reference.h).
#
# Started by the harness as `/usr/bin/python3 -I -B -c <this text> <spec JSON>` inside a sandbox
# (its own mount, network, IPC and PID namespaces; a root holding only /usr and the libraries' links;
# nobody, or the same user without capabilities; an empty working directory). It finds:
#   fd 3  commands from the harness, one per line: "CALL" (run once on the tensors now in memory)
#         or "COUNT" (run once under a FLOP counter, for `accelopt task import`: nothing is
#         written), followed by " CONSTANTS" where the harness wrote the constant inputs anew
#   fd 4  replies, one per line: "READY <json>", "DONE <seconds>", "COUNTED <json>",
#         "FAIL <json {message}>"
#   fd 5  the tensors' shared memory (shared_buffers.h): inputs, then outputs, float32 values
#         whatever the dtype (exact for every dtype the harness runs); `run` gets and returns the
#         definition's dtypes, except that NumPy has no bfloat16 or float8_e4m3fn, and PyTorch
#         before 2.1 (Debian's 1.13) no float8_e4m3fn: there they are float32 (values already
#         rounded to the dtype; outputs are rounded by the harness)
#   fd 6  the reference's source, read-only
# The spec names each tensor's shape, offset and byte size, and which inputs are constant: those
# the harness writes once for many calls, which the driver sees through a read-only mapping (a
# reference that changed one in place would change every later call's) and converts once. What
# the reference imports at its top level is imported first; then the driver closes the door (an
# audit hook that names what was refused, and a seccomp filter that makes every open, socket and
# exec fail) and only then runs the reference's own code, so a reference cannot read a file, open a
# socket or start a program.
import ast
import json
import mmap
import os
import sys
import time
import traceback
import warnings

REFERENCE_FILE = "reference.py"
commands = os.fdopen(3, "rb", buffering=0)
replies = os.fdopen(4, "wb", buffering=0)


def reply(line):
    replies.write((line + "\n").encode())


def fail(message):
    reply("FAIL " + json.dumps({"message": message}))
    sys.exit(0)


def reference_frames(error):
    # The traceback's lines inside reference.py: "reference.py:12 in run: x = 1 / 0".
    lines = []
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == REFERENCE_FILE:
            text = (frame.line or "").strip()
            lines.append(f"{REFERENCE_FILE}:{frame.lineno} in {frame.name}: {text}")
    return lines


def describe(error, doing):
    where = reference_frames(error)
    if isinstance(error, SyntaxError) and error.filename == REFERENCE_FILE:
        where = [f"{REFERENCE_FILE}:{error.lineno}: {(error.text or '').strip()}"]
    text = str(error)
    text = text if len(text) <= 1000 else text[:1000] + " [...]"  # a reply line stays short
    head = f"{doing}: {type(error).__name__}: {text}"
    return head + "".join("\n  " + line for line in where[-5:])


spec = json.loads(sys.argv[1])
source = b""
while True:
    chunk = os.read(6, 1 << 20)
    if not chunk:
        break
    source += chunk
os.close(6)
source = source.decode("utf-8", errors="replace")
memory = mmap.mmap(5, spec["bytes"]) if spec["bytes"] > 0 else None
constant_memory = {tensor["name"]: mmap.mmap(5, tensor["bytes"], prot=mmap.PROT_READ,
                                             offset=tensor["offset"])
                   for tensor in spec["inputs"] if tensor.get("constant") and tensor["bytes"] > 0}
os.close(5)

import linecache  # noqa: E402  (tracebacks show reference.py's lines without reading the file)

linecache.cache[REFERENCE_FILE] = (len(source), None, source.splitlines(True), REFERENCE_FILE)

try:
    tree = ast.parse(source, REFERENCE_FILE)
except SyntaxError as error:
    fail(describe(error, "reference.py does not parse"))

try:
    import numpy
except ImportError as error:
    fail(f"NumPy cannot be loaded ({str(error).strip().splitlines()[-1]}): install Debian's "
         "python3-numpy (scripts/setup.sh)")

# What the reference imports at its top level, loaded before the door closes.
wanted = set()
for node in tree.body:
    if isinstance(node, ast.Import):
        wanted.update(alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        wanted.add(node.module)
for name in sorted(wanted):
    try:
        __import__(name)
    except ImportError as error:
        if name.split(".")[0] == "torch":
            fail("reference.py imports torch, which is not installed here: install Debian's "
                 "python3-torch (scripts/setup.sh --torch)")
        fail(f"reference.py imports {name}, which cannot be loaded: {error}")
    except Exception as error:  # noqa: BLE001  (a module's own failure to load)
        fail(f"reference.py imports {name}, which fails to load here: "
             f"{type(error).__name__}: {error}")
uses_torch = "torch" in sys.modules
if uses_torch:
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode  # the FLOP counter's hook

measures = []


# The audit hook says in words what a reference tried; seccomp below is the wall behind it.
REFUSED = {
    "open": "open a file",
    "os.listdir": "list a directory",
    "os.scandir": "list a directory",
    "os.chdir": "change directory",
    "os.remove": "remove a file",
    "os.rename": "rename a file",
    "os.mkdir": "make a directory",
    "socket.__new__": "open a socket",
    "socket.connect": "connect a socket",
    "subprocess.Popen": "start a program",
    "os.system": "start a program",
    "os.exec": "start a program",
    "os.posix_spawn": "start a program",
    "os.spawn": "start a program",
    "os.fork": "fork",
    "os.kill": "signal a process",
    "ctypes.dlopen": "load a native library",
    "ctypes.dlsym": "look up a native symbol",
    "ctypes.call_function": "call native code through ctypes",
}


def audit(event, arguments):
    what = REFUSED.get(event)
    if what is None:
        return
    detail = f" ({arguments[0]!r})" if arguments and isinstance(arguments[0], (str, bytes)) else ""
    raise PermissionError(f"a reference may not {what}{detail}: it runs in the harness's sandbox")


def close_system_calls():
    import ctypes

    try:
        library = ctypes.CDLL("libseccomp.so.2")
    except OSError as error:
        return f"no seccomp filter (libseccomp: {error})"
    library.seccomp_init.restype = ctypes.c_void_p
    library.seccomp_init.argtypes = [ctypes.c_uint32]
    library.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                         ctypes.c_uint]
    library.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    library.seccomp_load.argtypes = [ctypes.c_void_p]
    library.seccomp_release.argtypes = [ctypes.c_void_p]
    allow, refuse = 0x7FFF0000, 0x00050000 | 13  # SCMP_ACT_ALLOW, SCMP_ACT_ERRNO(EACCES)
    context = library.seccomp_init(allow)
    if not context:
        return "no seccomp filter (seccomp_init failed)"
    for name in ("open", "openat", "openat2", "creat", "open_by_handle_at", "name_to_handle_at",
                 "socket", "socketpair", "connect", "bind", "execve", "execveat", "fork", "vfork",
                 "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "unshare",
                 "setns", "chroot", "pivot_root", "symlink", "symlinkat", "link", "linkat",
                 "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat",
                 "rmdir", "truncate", "bpf", "perf_event_open", "keyctl", "add_key",
                 "request_key", "init_module", "finit_module", "memfd_create", "userfaultfd"):
        number = library.seccomp_syscall_resolve_name(name.encode())
        if number >= 0 and library.seccomp_rule_add(context, refuse, number, 0) != 0:
            library.seccomp_release(context)
            return f"no seccomp filter (cannot add {name})"
    loaded = library.seccomp_load(context)
    library.seccomp_release(context)
    return "seccomp" if loaded == 0 else f"no seccomp filter (seccomp_load: {loaded})"


seccomp = close_system_calls()
measures.append(seccomp)
sys.addaudithook(audit)
measures.append("audit_hook")

module = {"__name__": "reference", "__file__": REFERENCE_FILE, "__builtins__": __builtins__}
try:
    exec(compile(tree, REFERENCE_FILE, "exec"), module)
except BaseException as error:  # noqa: BLE001  (SystemExit included: it is the reference's)
    fail(describe(error, "reference.py failed while loading"))
run = module.get("run")
if not callable(run):
    fail("reference.py defines no run(): a Python reference is a function "
         "run(" + ", ".join(t["name"] for t in spec["inputs"]) + ") that returns the outputs")
run_line = run.__code__.co_firstlineno if hasattr(run, "__code__") else 0
reply("READY " + json.dumps({"measures": measures, "torch": uses_torch}))


def shape_text(shape):
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


NUMPY_DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "float32",
                "float8_e4m3fn": "float32", "int8": "int8", "int32": "int32"}
IN_FLOAT32 = ("bfloat16", "float8_e4m3fn")  # held as float32 where the library has no such type


def torch_dtype(name):
    return getattr(torch, name, torch.float32)


def as_numpy(value, tensor):
    name, dtype = tensor["name"], tensor["dtype"]
    if uses_torch and isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        if value.dtype != torch_dtype(dtype):
            raise TypeError(f"run returned {name} as {str(value.dtype).replace('torch.', '')}; "
                            f"the definition says {dtype}")
        return value.to(torch.float32).numpy() if dtype in IN_FLOAT32 else value.numpy()
    if isinstance(value, numpy.ndarray) or numpy.isscalar(value):
        array = numpy.asarray(value)
        wanted = NUMPY_DTYPES[dtype]
        if array.dtype != numpy.dtype(wanted):
            note = f" (NumPy has no {dtype}: return float32)" if dtype in IN_FLOAT32 else ""
            raise TypeError(f"run returned {name} as {array.dtype}; the definition says {dtype}"
                            f"{note} (end with .astype(numpy.{wanted}))")
        return array
    raise TypeError(f"run returned {name} as {type(value).__name__}, not an array")


def as_input(array, dtype):
    if uses_torch:
        return torch.from_numpy(array).to(torch_dtype(dtype))
    return array.astype(NUMPY_DTYPES[dtype])


def outputs_of(result):
    names = [t["name"] for t in spec["outputs"]]
    if isinstance(result, dict):
        missing = [n for n in names if n not in result]
        if missing:
            raise TypeError("run returned a dict without " + ", ".join(missing))
        return [result[n] for n in names]
    if isinstance(result, (tuple, list)):
        if len(result) != len(names):
            raise TypeError(f"run returned {len(result)} values; the definition has "
                            f"{len(names)} outputs ({', '.join(names)})")
        return list(result)
    if len(names) != 1:
        raise TypeError(f"run returned one value; the definition has {len(names)} outputs "
                        f"({', '.join(names)}): return a tuple in that order")
    return [result]


held_constants = {}  # by name: what a constant input was made into, until the harness writes anew


def constant_input(tensor):
    # Kept only where it cannot be changed: a read-only array, or a tensor on the read-only
    # mapping (torch warns that it is not writable; writing it stops the driver with SIGSEGV).
    name = tensor["name"]
    if name in held_constants:
        return held_constants[name]
    array = numpy.frombuffer(constant_memory[name], numpy.float32).reshape(tensor["shape"])
    if uses_torch:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            value = torch.from_numpy(array)
        converted = value.to(torch_dtype(tensor["dtype"]))
        if converted.data_ptr() != value.data_ptr():
            return converted  # a copy, which run() may change: made again for the next call
        held_constants[name] = converted
        return converted
    converted = array.astype(NUMPY_DTYPES[tensor["dtype"]], copy=False)
    converted.flags.writeable = False
    held_constants[name] = converted
    return converted


def load_inputs():
    inputs = {}
    for tensor in spec["inputs"]:
        if tensor["name"] in constant_memory:
            inputs[tensor["name"]] = constant_input(tensor)
            continue
        count = tensor["bytes"] // 4
        # A view of the shared memory, not a copy: a MoE's weights, 5.6 GB as float32, would be
        # held twice. The harness rewrites the inputs before every call and never reads them back.
        array = numpy.frombuffer(memory, numpy.float32, count, tensor["offset"])
        array = array.reshape(tensor["shape"])
        inputs[tensor["name"]] = as_input(array, tensor["dtype"])
    return inputs


# Debian's PyTorch 1.13 lacks some float16 and bfloat16 operations on the CPU (a float16 matrix
# product: "addmm_impl_cpu_" not implemented for 'Half'), which FlashInfer-Bench's references,
# written for GPUs, use. A run that fails so is run again with those operations taken in float32
# and their results rounded back to the dtype once, as a GPU's float16 GEMM accumulates in float32.
def lacks_half_operation(error):
    text = str(error)
    return isinstance(error, RuntimeError) and (
        "not implemented for 'Half'" in text or "not implemented for 'BFloat16'" in text)


def operation_in_float32(func, args, kwargs):
    try:
        return func(*args, **kwargs)
    except RuntimeError as error:
        if not lacks_half_operation(error):
            raise
    halves = (torch.float16, torch.bfloat16)
    narrow = [a.dtype for a in args if isinstance(a, torch.Tensor) and a.dtype in halves]
    widened = [a.float() if isinstance(a, torch.Tensor) and a.dtype in halves else a for a in args]
    result = func(*widened, **kwargs)
    if isinstance(result, torch.Tensor) and result.dtype == torch.float32 and narrow:
        return result.to(narrow[0])
    return result


def run_with_float32_fallback(inputs):
    try:
        return run(**inputs)
    except RuntimeError as error:
        if not (uses_torch and lacks_half_operation(error)):
            raise

    class Float32Fallback(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return operation_in_float32(func, args, kwargs or {})

    with Float32Fallback():
        return run(**inputs)


def call():
    inputs = load_inputs()
    started = time.perf_counter()
    try:
        result = run_with_float32_fallback(inputs)
    except BaseException as error:  # noqa: BLE001
        return "FAIL " + json.dumps({"message": describe(error, "run raised")})
    seconds = time.perf_counter() - started
    try:
        values = outputs_of(result)
        arrays = []
        for tensor, value in zip(spec["outputs"], values):
            array = as_numpy(value, tensor)
            if list(array.shape) != tensor["shape"]:
                raise ValueError(f"run returned {tensor['name']} with shape "
                                 f"{shape_text(array.shape)}; the definition says "
                                 f"{shape_text(tensor['shape'])}")
            arrays.append(array)
    except (TypeError, ValueError) as error:
        return "FAIL " + json.dumps({"message": f"{REFERENCE_FILE}:{run_line} (def run): {error}"})
    for tensor, array in zip(spec["outputs"], arrays):
        view = numpy.frombuffer(memory, numpy.float32, tensor["bytes"] // 4, tensor["offset"])
        view[:] = numpy.ascontiguousarray(array).reshape(-1)
    return f"DONE {seconds!r}"


# The FLOP counter of "COUNT": what run() asks of the library, counted by the shapes it is asked
# on. A matrix product (mm, bmm, einsum with a contraction, convolution, ...) counts 2 per
# multiply-add as mm_flops; an elementwise operation 1 per element it writes, a reduction 1 per
# element it reads, a softmax 5 per element (max, subtract, exp, sum, divide) as vec_flops. As
# NKIBench counts (docs/task-format.md, "FLOP counts"), adding, subtracting, multiplying or
# dividing by a constant scalar is not counted (fused into its neighbour). Operations that only
# move or convert data count nothing; those the counter does not know are named in "unknown".
POINTWISE = {
    "abs", "add", "addcdiv", "addcmul", "atan", "atan2", "ceil", "clamp", "clamp_max",
    "clamp_min", "clip", "cos", "cosh", "div", "divide", "elu", "eq", "erf", "erfc", "exp", "exp2",
    "expm1", "floor", "fmod", "ge", "gelu", "gt", "hardsigmoid", "hardswish", "hardtanh", "le",
    "leaky_relu", "lerp", "log", "log10", "log1p", "log2", "logaddexp", "logical_and",
    "logical_not", "logical_or", "lt", "maximum", "minimum", "mish", "mul", "multiply", "ne", "neg",
    "negative", "pow", "power", "reciprocal", "relu", "remainder", "round", "rsqrt", "rsub",
    "sigmoid", "sign", "silu", "sin", "sinh", "softplus", "sqrt", "square", "sub", "subtract",
    "tan", "tanh", "true_divide", "where", "fmax", "fmin", "greater", "less", "equal",
    "not_equal", "greater_equal", "less_equal", "absolute", "arctan", "arctan2", "float_power",
    "mod", "nan_to_num",
}
SCALAR_FUSED = {"add", "sub", "rsub", "mul", "div", "true_divide", "multiply", "divide",
                "subtract"}
REDUCTIONS = {"sum", "mean", "amax", "amin", "max", "min", "prod", "var", "std", "norm",
              "linalg_vector_norm", "logsumexp", "cumsum", "cumprod", "argmax", "argmin", "all",
              "any", "var_mean", "std_mean", "nansum", "nanmean", "add.reduce", "maximum.reduce",
              "minimum.reduce", "multiply.reduce", "logaddexp.reduce", "topk", "sort", "argsort"}
SOFTMAX = {"_softmax", "softmax", "_log_softmax", "log_softmax"}
MOVES = {
    "_reshape_alias", "_to_copy", "_unsafe_view", "alias", "arange", "as_strided", "cat", "chunk",
    "clone", "contiguous", "copy", "copy_", "detach", "diag", "diagonal", "embedding", "empty",
    "empty_like", "empty_strided", "expand", "expand_as", "fill", "flatten", "flip", "full",
    "full_like", "gather", "index", "index_add", "index_copy", "index_put", "index_select",
    "lift_fresh", "lift_fresh_copy", "masked_fill", "movedim", "narrow", "new_empty",
    "new_empty_strided", "new_full", "new_ones", "new_zeros", "ones", "ones_like", "permute",
    "repeat", "repeat_interleave", "reshape", "resize", "roll", "scalar_tensor", "scatter",
    "select", "select_scatter", "slice", "slice_scatter", "split", "split_with_sizes", "squeeze",
    "stack", "t", "to", "transpose", "tril", "triu", "unbind", "unflatten", "unsqueeze", "view",
    "view_as", "zero", "zeros", "zeros_like", "_local_scalar_dense", "item", "set", "lift",
    "zero_", "fill_", "nonzero", "bitwise_and", "bitwise_or", "bitwise_not", "bitwise_xor",
    "isnan", "isinf", "isfinite", "astype", "concatenate", "take", "take_along_axis",
    "broadcast_to", "swapaxes", "moveaxis", "ravel", "sym_size", "sym_stride", "sym_numel",
    "is_same_size", "_has_compatible_shallow_copy_type", "resize_", "copyto", "tile", "eye",
}
MATRIX = {"mm", "bmm", "addmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "vdot", "matmul",
          "inner", "tensordot", "outer", "addr", "convolution", "_convolution", "linear",
          "einsum"}


def elements(shape):
    count = 1
    for dimension in shape:
        count *= int(dimension)
    return count


class Tally:
    def __init__(self):
        self.mm = 0
        self.vec = 0
        self.unknown = {}

    def add(self, name, arguments, result_shape, contracted=None):
        name = name.rstrip("_") if name not in ("copy_", "fill_", "zero_", "resize_") else name
        if name in MATRIX:
            if contracted is not None:
                self.mm += 2 * elements(result_shape) * contracted
            return
        tensors = [a for a in arguments if hasattr(a, "shape")]
        if name in SOFTMAX:
            self.vec += 5 * elements(tensors[0].shape)
        elif name in REDUCTIONS:
            self.vec += elements(tensors[0].shape) if tensors else 0
        elif name in POINTWISE:
            numbers = [a for a in arguments if isinstance(a, (int, float))]
            small = [a for a in tensors if elements(a.shape) == 1]
            fused = name in SCALAR_FUSED and (numbers or (small and len(tensors) > len(small)))
            if not fused:
                self.vec += elements(result_shape)
        elif name not in MOVES:
            self.unknown[name] = self.unknown.get(name, 0) + 1

    def report(self, library):
        return {"mm_flops": self.mm, "vec_flops": self.vec, "library": library,
                "unknown": sorted(self.unknown)}


def matrix_contraction(name, arguments):
    # The multiply-adds per output element of a matrix operation: its contracted length.
    tensors = [a for a in arguments if hasattr(a, "shape")]
    if name in ("convolution", "_convolution"):
        weight = tensors[1]
        return elements(weight.shape[1:])
    if name == "addbmm":
        return tensors[-2].shape[0] * tensors[-2].shape[-1]
    if name in ("outer", "addr"):
        return 1
    if name == "linear":
        return tensors[0].shape[-1]
    left = tensors[-2] if name in ("addmm", "baddbmm", "addmv") else tensors[0]
    return left.shape[-1] if len(left.shape) > 0 else 1


def counted_with_torch(inputs):
    tally = Tally()

    class Counter(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            result = operation_in_float32(func, args, kwargs or {})
            name = func.overloadpacket.__name__
            first = result[0] if isinstance(result, (tuple, list)) and result else result
            shape = tuple(first.shape) if hasattr(first, "shape") else ()
            contracted = matrix_contraction(name, args) if name.rstrip("_") in MATRIX else None
            tally.add(name, list(args), shape, contracted)
            return result

    with Counter():
        run(**inputs)
    return tally.report("torch")


def einsum_contraction(subscripts, operands):
    # The product of the lengths of the letters summed over, from "ij,jk->ik".
    inputs, _, output = subscripts.replace(" ", "").partition("->")
    sizes = {}
    for letters, operand in zip(inputs.split(","), operands):
        for letter, size in zip(letters.replace("...", ""), operand.shape[-len(letters):]):
            sizes[letter] = int(size)
    if not output:
        output = "".join(sorted(l for l in sizes if inputs.count(l) == 1))
    contracted = 1
    for letter, size in sizes.items():
        if letter not in output:
            contracted *= size
    return contracted


def counted_with_numpy(inputs):
    tally = Tally()

    def plain(value):
        if isinstance(value, Counted):
            return value.view(numpy.ndarray)
        if isinstance(value, (list, tuple)):
            return type(value)(plain(v) for v in value)
        return value

    def wrapped(value):
        if isinstance(value, numpy.ndarray) and not isinstance(value, Counted):
            return value.view(Counted)
        if isinstance(value, tuple):
            return tuple(wrapped(v) for v in value)
        return value

    class Counted(numpy.ndarray):
        def __array_ufunc__(self, ufunc, method, *arguments, **keywords):
            keywords = {k: plain(v) for k, v in keywords.items()}
            result = getattr(ufunc, method)(*plain(arguments), **keywords)
            first = result[0] if isinstance(result, tuple) else result
            shape = numpy.shape(first)
            if ufunc.__name__ == "matmul":
                tally.add("matmul", plain(arguments), shape, numpy.shape(arguments[0])[-1])
            elif method == "__call__":
                tally.add(ufunc.__name__, plain(arguments), shape)
            elif method in ("reduce", "accumulate"):
                tally.add(ufunc.__name__ + ".reduce", plain(arguments), shape)
            return wrapped(result)

        def __array_function__(self, function, types, arguments, keywords):
            name = function.__name__
            result = function(*plain(arguments), **{k: plain(v) for k, v in keywords.items()})
            shape = numpy.shape(result)
            if name == "einsum" and isinstance(arguments[0], str):
                tally.add(name, [], shape, einsum_contraction(arguments[0], arguments[1:]))
            elif name in ("dot", "inner", "tensordot", "vdot"):
                left, right = (numpy.asarray(plain(a)) for a in arguments[:2])
                out = max(elements(shape), 1)
                contracted = round((left.size * right.size / out) ** 0.5)
                tally.add(name, [], shape, contracted)
            else:
                tally.add(name, plain(arguments), shape)
            return wrapped(result)

    run(**{name: wrapped(numpy.asarray(value)) for name, value in inputs.items()})
    return tally.report("numpy")


def count():
    inputs = load_inputs()
    try:
        counts = counted_with_torch(inputs) if uses_torch else counted_with_numpy(inputs)
    except BaseException as error:  # noqa: BLE001
        return "FAIL " + json.dumps({"message": describe(error, "run raised while counted")})
    return "COUNTED " + json.dumps(counts)


while True:
    line = commands.readline()
    if not line:
        break
    command, _, constants = line.decode().strip().partition(" ")
    if constants == "CONSTANTS":
        held_constants.clear()
    elif constants:
        fail(f"unknown command {line.decode().strip()!r}")
    if command == "CALL":
        reply(call())
    elif command == "COUNT":
        reply(count())
    else:
        fail(f"unknown command {command!r}")
