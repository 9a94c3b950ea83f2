"""Array arguments: numpy arrays and torch tensors (host or CUDA), objects with
``__cuda_array_interface__`` and DLPack producers, each seen as a `Buffer`: its address, logical
dims (N, C, [D,] H, W), data type, channel order and device. Every check raises an exception naming
the argument and what is wrong before anything runs.

Layouts: the dims are always logical (N, C, spatial...), as torch orders them; the strides say the
memory order and must be packed channels first (NCHW, C-contiguous) or packed channels last (NHWC:
torch's channels_last, or numpy's ``a_nhwc.transpose(0, 3, 1, 2)``). Strides of size-1 dims are
ignored (they address nothing)."""
import ctypes

import numpy as np

DTYPES = ("fp32", "fp16", "bf16")
DTYPE_CODE = {"fp32": 0, "fp16": 1, "bf16": 2}  # hiprimDataType_t
ITEMSIZE = {"fp32": 4, "fp16": 2, "bf16": 2}


class Buffer:
    """One array argument. strides are in elements; layout is 'nchw' or 'nhwc' for 4-D and 5-D
    tensors (5-D: channels first or last the same way), None for vectors."""

    def __init__(self, obj, kind, ptr, shape, strides, dtype, device, device_index=0, keep=None, readonly=False):
        self.obj, self.kind, self.ptr = obj, kind, ptr
        self.shape, self.strides, self.dtype = tuple(int(d) for d in shape), tuple(int(s) for s in strides), dtype
        self.device, self.device_index, self.keep, self.readonly = device, device_index, keep, readonly
        self.layout = None

    @property
    def nbytes(self):
        return int(np.prod(self.shape)) * ITEMSIZE[self.dtype]


def packed_strides(shape, channels_last):
    """Element strides of packed dims (N, C, spatial...), channels first or last."""
    order = ([1] + list(range(len(shape) - 1, 1, -1)) if channels_last else list(range(len(shape) - 1, 0, -1))) + [0]
    strides, step = [0] * len(shape), 1
    for d in order:
        strides[d], step = step, step * shape[d]
    return tuple(strides)


def _same_packing(shape, strides, want):
    return all(s == w for d, s, w in zip(shape, strides, want) if d != 1)


def _torch_dtype(t):
    import torch
    return {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}.get(t)


def _numpy_dtype(dt):
    if dt == np.float32:
        return "fp32"
    if dt == np.float16:
        return "fp16"
    return "bf16" if dt.name == "bfloat16" else None  # ml_dtypes.bfloat16


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


def _from_dlpack(obj, name):
    capsule = obj.__dlpack__()  # kept alive in Buffer.keep: its destructor frees the producer's view
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))  # DLManagedTensor starts with DLTensor
    shape = [t.shape[i] for i in range(t.ndim)]
    strides = [t.strides[i] for i in range(t.ndim)] if t.strides else list(packed_strides(shape, False)) if shape else []
    code = (t.dtype.code, t.dtype.bits, t.dtype.lanes)
    dtype = {(2, 32, 1): "fp32", (2, 16, 1): "fp16", (4, 16, 1): "bf16"}.get(code)
    if dtype is None:
        raise TypeError(f"{name}: DLPack data type (code {code[0]}, {code[1]} bits, {code[2]} lanes) is not float32, float16 or bfloat16")
    device = {1: "host", 3: "host", 2: "cuda"}.get(t.device.device_type)
    if device is None:
        raise ValueError(f"{name}: DLPack device type {t.device.device_type} is neither CPU nor CUDA")
    return Buffer(obj, "dlpack", (t.data or 0) + t.byte_offset, shape, strides, dtype, device, t.device.device_id, keep=capsule)


def _from_cuda_array_interface(obj, name):
    cai = obj.__cuda_array_interface__
    typestr = cai["typestr"]
    dtype = {"<f4": "fp32", "<f2": "fp16"}.get(typestr)
    if dtype is None:
        raise TypeError(f"{name}: __cuda_array_interface__ typestr {typestr!r} is not '<f4' (float32) or '<f2' (float16)")
    shape = cai["shape"]
    strides = cai.get("strides")
    strides = packed_strides(shape, False) if strides is None else tuple(s // ITEMSIZE[dtype] for s in strides)
    ptr, readonly = cai["data"]
    return Buffer(obj, "cai", ptr or 0, shape, strides, dtype, "cuda", readonly=readonly)


def buffer_of(obj, name):
    """The Buffer of obj; TypeError naming `name` when obj is no array hiprim takes."""
    if type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr"):
        dtype = _torch_dtype(obj.dtype)
        if dtype is None:
            raise TypeError(f"{name}: dtype {obj.dtype} is not torch.float32, torch.float16 or torch.bfloat16")
        if obj.device.type not in ("cpu", "cuda"):
            raise ValueError(f"{name}: device {obj.device} is neither cpu nor cuda")
        device = "host" if obj.device.type == "cpu" else "cuda"
        return Buffer(obj, "torch", obj.data_ptr(), obj.shape, obj.stride(), dtype, device, obj.device.index or 0)
    if isinstance(obj, np.ndarray):
        dtype = _numpy_dtype(obj.dtype)
        if dtype is None:
            raise TypeError(f"{name}: dtype {obj.dtype} is not float32, float16 or bfloat16 (ml_dtypes)")
        if any(s % obj.itemsize for s in obj.strides):
            raise ValueError(f"{name}: byte strides {obj.strides} are not multiples of the item size {obj.itemsize}")
        return Buffer(obj, "numpy", obj.ctypes.data, obj.shape, [s // obj.itemsize for s in obj.strides], dtype, "host",
                      readonly=not obj.flags.writeable)
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cuda_array_interface(obj, name)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, name)
    raise TypeError(f"{name}: {type(obj).__name__} is not a numpy array, a torch tensor, nor an object with "
                    "__cuda_array_interface__ or __dlpack__")


def tensor(obj, name, ranks=(4, 5), dtype=None, shape=None, output=False):
    """obj as a 4-D/5-D Buffer with its layout set; checks rank, packing, dtype and shape."""
    b = buffer_of(obj, name)
    if len(b.shape) not in ranks:
        raise ValueError(f"{name}: rank {len(b.shape)} (shape {b.shape}); wanted rank " + " or ".join(map(str, ranks)) +
                         " with dims (N, C, [D,] H, W)")
    if any(d < 1 for d in b.shape):
        raise ValueError(f"{name}: shape {b.shape} has an empty dimension")
    first, last = packed_strides(b.shape, False), packed_strides(b.shape, True)
    if _same_packing(b.shape, b.strides, first):
        b.layout = "nchw"
    elif _same_packing(b.shape, b.strides, last):
        b.layout = "nhwc"
    else:
        raise ValueError(f"{name}: strides {b.strides} (elements) of shape {b.shape} are neither packed NCHW {first} "
                         f"nor packed NHWC {last}; make it contiguous (.contiguous(), np.ascontiguousarray)")
    b.either = _same_packing(b.shape, b.strides, first) and _same_packing(b.shape, b.strides, last)
    _check_common(b, name, dtype, shape, output)
    return b


def vector(obj, name, length, dtype=None, output=False):
    """obj as a packed 1-D Buffer of `length` elements (batch norm's per-channel parameters)."""
    b = buffer_of(obj, name)
    if len(b.shape) != 1:
        raise ValueError(f"{name}: rank {len(b.shape)} (shape {b.shape}); wanted a vector of {length}")
    if b.shape[0] != 1 and b.strides[0] != 1:
        raise ValueError(f"{name}: stride {b.strides[0]} is not 1 (not contiguous)")
    _check_common(b, name, dtype, (length,), output)
    return b


def _check_common(b, name, dtype, shape, output):
    if dtype is not None and b.dtype not in ((dtype,) if isinstance(dtype, str) else dtype):
        raise TypeError(f"{name}: dtype {b.dtype}, wanted {dtype if isinstance(dtype, str) else ' or '.join(dtype)}")
    if shape is not None and b.shape != tuple(shape):
        raise ValueError(f"{name}: shape {b.shape}, wanted {tuple(shape)}")
    if output and b.readonly:
        raise ValueError(f"{name}: the output array is read-only")
    if b.ptr == 0:
        raise ValueError(f"{name}: null data pointer")


def empty_like(ref, shape, dtype=None, layout=None, name="output"):
    """A new array like ref's (numpy or torch, same device) of `shape`, ref's dtype unless given,
    packed in `layout` ('nchw', 'nhwc', None for vectors); ValueError for other kinds (pass out=)."""
    dtype = dtype or ref.dtype
    channels_last = layout == "nhwc"
    if ref.kind == "torch":
        import torch
        t_dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
        out = torch.empty(shape, dtype=t_dtype, device=ref.obj.device)
        if channels_last:
            out = out.contiguous(memory_format=torch.channels_last if len(shape) == 4 else torch.channels_last_3d)
        return out
    if ref.kind == "numpy":
        np_dtype = ref.obj.dtype if dtype == ref.dtype else {"fp32": np.float32, "fp16": np.float16}.get(dtype)
        if np_dtype is None:
            import ml_dtypes
            np_dtype = ml_dtypes.bfloat16
        if not channels_last:
            return np.empty(shape, dtype=np_dtype)
        perm = (0,) + tuple(range(2, len(shape))) + (1,)
        back = (0, len(shape) - 1) + tuple(range(1, len(shape) - 1))
        return np.empty(tuple(shape[i] for i in perm), dtype=np_dtype).transpose(back)
    raise ValueError(f"{name}: cannot allocate an output for a {ref.kind} input; pass it as out=")
