"""Handles, descriptors and the calls shared by every primitive: which backend a call runs on (the
arrays' device: host memory -> the host backend, CUDA memory -> the device backend), the C API's
status turned into `hiprim.Error` with the library's message, workspaces, and running a problem
string (hiprimRunProblem) with each buffer checked against the problem's tensors."""
import ctypes

import numpy as np

from . import _arrays
from ._lib import lib

BACKEND_DEVICE, BACKEND_HOST = 0, 1  # hiprimBackend_t


class Error(RuntimeError):
    """A call the library refused or failed: `status` (hiprimStatus_t), `call`, and the message
    (hiprimGetErrorString's and the handle's hiprimGetLastErrorMessage)."""

    def __init__(self, status, call, message):
        super().__init__(f"{call}: {message}")
        self.status, self.call = status, call


def check(status, call, handle=None):
    if status == 0:
        return
    text = lib().hiprimGetErrorString(status).decode()
    if handle is not None:
        last = lib().hiprimGetLastErrorMessage(handle).decode()
        if last:
            text += ": " + last
    raise Error(status, call, text)


def version():
    """(major, minor, patch) of the loaded libhiprim.so."""
    v = [ctypes.c_int(-1) for _ in range(3)]
    lib().hiprimGetVersion(*(ctypes.byref(x) for x in v))
    return tuple(x.value for x in v)


_handles = {}


def handle(device):
    """The cached handle of backend 'host' or 'cuda' (created on first use)."""
    if device not in _handles:
        h = ctypes.c_void_p()
        check(lib().hiprimCreateWithBackend(ctypes.byref(h), BACKEND_HOST if device == "host" else BACKEND_DEVICE),
              f"hiprimCreateWithBackend({device})")
        _handles[device] = h
    return _handles[device]


def last_solver(device="host"):
    """The solver of the last call on the backend's handle ('' before one)."""
    return lib().hiprimGetLastSolverName(handle(device)).decode()


class Call:
    """One call's arrays: every Buffer named, on one device, in one channel order. Picks the
    handle, sets its stream (torch's current stream for CUDA torch tensors, else `stream`)."""

    def __init__(self, buffers, stream=None):
        self.buffers = buffers
        devices = {(b.device, b.device_index) for b in buffers.values()}
        if len(devices) != 1:
            raise ValueError("arrays on different devices: " + ", ".join(f"{n} on {b.device}:{b.device_index}"
                                                                        for n, b in buffers.items()))
        self.device, index = devices.pop()
        if self.device == "cuda" and index != 0:
            raise ValueError(f"arrays on cuda:{index}; the device backend uses the process's device 0")
        layouts = {b.layout for b in buffers.values() if b.layout and not b.either}
        if len(layouts) > 1:
            raise ValueError("arrays in different channel orders (all NCHW or all NHWC): " +
                             ", ".join(f"{n} {b.layout}" for n, b in buffers.items() if b.layout and not b.either))
        self.layout = layouts.pop() if layouts else "nchw"
        self.h = handle(self.device)
        if self.device == "cuda":
            if stream is None:
                torch_bufs = [b for b in buffers.values() if b.kind == "torch"]
                if torch_bufs:
                    import torch
                    stream = torch.cuda.current_stream(torch_bufs[0].obj.device).cuda_stream
            check(lib().hiprimSetStream(self.h, ctypes.c_void_p(stream or None)), "hiprimSetStream", self.h)

    def ref(self):
        return next(iter(self.buffers.values()))

    def output(self, name, out, shape, dtype=None, layout="same"):
        """`out` checked (shape, dtype, device, layout) or a new array like the first input's."""
        layout = self.layout if layout == "same" else layout
        dtype = dtype or self.ref().dtype
        if out is None:
            out = _arrays.empty_like(self.ref(), shape, dtype, layout, name)
        b = _arrays.tensor(out, name, ranks=(len(shape),), dtype=dtype, shape=shape, output=True) if layout else \
            _arrays.vector(out, name, shape[0], dtype=dtype, output=True)
        if (b.device, b.device_index) != (self.ref().device, self.ref().device_index):
            raise ValueError(f"{name}: on {b.device}:{b.device_index}, the inputs on {self.ref().device}")
        if layout and not b.either and b.layout != layout:
            raise ValueError(f"{name}: {b.layout.upper()}, the inputs {layout.upper()}")
        self.buffers[name] = b
        return out, b

    def workspace(self, need, workspace=None):
        """(object, pointer) of a workspace of `need` bytes: `workspace` if given and large enough,
        else a new one on the call's device (numpy or torch; other kinds must pass workspace=)."""
        if need == 0:
            return None, None
        if workspace is not None:
            b = _arrays.buffer_of(workspace, "workspace")
            if b.nbytes < need or b.device != self.device:
                raise ValueError(f"workspace: {b.nbytes} bytes on {b.device}; the solver needs {need} on {self.device}")
            return workspace, b.ptr
        ref = self.ref()
        if ref.kind == "torch":
            import torch
            ws = torch.empty(need, dtype=torch.uint8, device=ref.obj.device)
            return ws, ws.data_ptr()
        if self.device == "host":
            ws = np.empty(need, dtype=np.uint8)
            return ws, ws.ctypes.data
        raise ValueError(f"the solver needs a workspace of {need} bytes on the device: pass workspace= (a device array)")


class TensorDesc:
    """A hiprimTensorDescriptor_t of a Buffer's dims, dtype and channel order (or explicit ones)."""

    def __init__(self, dims, dtype, layout):
        self.d = ctypes.c_void_p()
        check(lib().hiprimCreateTensorDescriptor(ctypes.byref(self.d)), "hiprimCreateTensorDescriptor")
        n = len(dims)
        strides = _arrays.packed_strides(dims, layout == "nhwc")
        status = lib().hiprimSetTensorDescriptor(self.d, _arrays.DTYPE_CODE[dtype], n, (ctypes.c_int * n)(*dims),
                                                 (ctypes.c_int * n)(*strides))
        if status != 0:
            self.close()
            check(status, f"hiprimSetTensorDescriptor({dtype}, {tuple(dims)})")

    @classmethod
    def of(cls, b, layout=None):
        return cls(b.shape, b.dtype, layout or b.layout)

    def close(self):
        if self.d:
            lib().hiprimDestroyTensorDescriptor(self.d)
            self.d = ctypes.c_void_p()

    def __del__(self):
        self.close()


def shape_tokens(dtype, layout, shape):
    """'<dtype> <layout> n.. c.. in..' of a problem string (5-D: ncdhw / ndhwc)."""
    lay = layout if len(shape) == 4 else {"nchw": "ncdhw", "nhwc": "ndhwc"}[layout]
    return f"{dtype} {lay} n{shape[0]} c{shape[1]} in" + "x".join(str(d) for d in shape[2:])


def problem_tensors(h, problem):
    """[(name, bytes, role)] of a problem string's tensors (role 0 in, 1 out, 2 both)."""
    count = ctypes.c_int()
    check(lib().hiprimProblemTensorCount(h, problem.encode(), ctypes.byref(count)), "hiprimProblemTensorCount", h)
    out = []
    for i in range(count.value):
        name, size, role = ctypes.c_char_p(), ctypes.c_size_t(), ctypes.c_int()
        check(lib().hiprimProblemTensorInfo(h, problem.encode(), i, ctypes.byref(name), ctypes.byref(size), ctypes.byref(role)),
              "hiprimProblemTensorInfo", h)
        out.append((name.value.decode(), size.value, role.value))
    return out


def run_problem(problem, arrays, workspace=None, stream=None):
    """Runs a problem string (the grammar of `hiprim repro`) on the arrays' backend; arrays in the
    order of the problem's tensors, each with exactly the tensor's byte size and writable where the
    problem writes it. Returns the solver's name."""
    bufs = {}
    for i, a in enumerate(arrays):
        b = _arrays.buffer_of(a, f"buffer {i}")
        if not _arrays._same_packing(b.shape, b.strides, _arrays.packed_strides(b.shape, False)) and \
                not _arrays._same_packing(b.shape, b.strides, _arrays.packed_strides(b.shape, True)):
            raise ValueError(f"buffer {i}: strides {b.strides} of shape {b.shape} are not packed")
        bufs[f"buffer {i}"] = b
    call = Call(bufs, stream)
    tensors = problem_tensors(call.h, problem)
    if len(tensors) != len(arrays):
        raise ValueError(f"{problem!r} takes {len(tensors)} buffers ({', '.join(t[0] for t in tensors)}), {len(arrays)} given")
    for (name, size, role), b, i in zip(tensors, bufs.values(), range(len(arrays))):
        if b.nbytes != size:
            raise ValueError(f"buffer {i} ({name}): {b.nbytes} bytes ({b.dtype} {b.shape}), the problem's {name} has {size}")
        if role != 0 and b.readonly:
            raise ValueError(f"buffer {i} ({name}): read-only, but the problem writes it")
    need = ctypes.c_size_t()
    check(lib().hiprimProblemWorkSpaceSize(call.h, problem.encode(), ctypes.byref(need)), "hiprimProblemWorkSpaceSize", call.h)
    _, ws = call.workspace(need.value, workspace)
    ptrs = (ctypes.c_void_p * len(arrays))(*(b.ptr for b in bufs.values()))
    check(lib().hiprimRunProblem(call.h, problem.encode(), ptrs, len(arrays), ws, need.value), f"hiprimRunProblem({problem!r})",
          call.h)
    return last_solver(call.device)
