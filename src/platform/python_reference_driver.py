# The driver that runs a task's reference.py for the harness (platform/python_reference.h).
#
# Started by the harness as `/usr/bin/python3 -I -B -c <this text> <spec JSON>` inside a sandbox
# (its own mount, network, IPC and PID namespaces; a root holding only /usr and the libraries' links;
# nobody, or the same user without capabilities; an empty working directory). It finds:
#   fd 3  commands from the harness, one per line: "CALL" (run once on the tensors now in memory)
#   fd 4  replies, one per line: "READY <json>", "DONE <seconds>", "FAIL <json {message}>"
#   fd 5  the tensors' shared memory (shared_buffers.h): inputs, then outputs, float32 values
#         whatever the dtype (exact for every dtype the harness runs); `run` gets and returns the
#         definition's dtypes, except that NumPy has no bfloat16 or float8_e4m3fn, and PyTorch
#         before 2.1 (Debian's 1.13) no float8_e4m3fn: there they are float32 (values already
#         rounded to the dtype; outputs are rounded by the harness)
#   fd 6  the reference's source, read-only
# The spec names each tensor's shape, offset and byte size. What the reference imports at its top
# level is imported first; then the driver closes the door (an audit hook that names what was
# refused, and a seccomp filter that makes every open, socket and exec fail) and only then runs the
# reference's own code, so a reference cannot read a file, open a socket or start a program.
import ast
import json
import mmap
import os
import sys
import time
import traceback

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


def call():
    inputs = {}
    for tensor in spec["inputs"]:
        count = tensor["bytes"] // 4
        # A view of the shared memory, not a copy: a MoE's weights, 5.6 GB as float32, would be
        # held twice. The harness rewrites the inputs before every call and never reads them back.
        array = numpy.frombuffer(memory, numpy.float32, count, tensor["offset"])
        array = array.reshape(tensor["shape"])
        inputs[tensor["name"]] = as_input(array, tensor["dtype"])
    started = time.perf_counter()
    try:
        result = run(**inputs)
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


while True:
    line = commands.readline()
    if not line:
        break
    command = line.decode().strip()
    if command == "CALL":
        reply(call())
    else:
        fail(f"unknown command {command!r}")
