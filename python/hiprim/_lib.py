"""Loads libhiprim.so through ctypes and declares the C API's functions (include/hiprim/hiprim.h).

Where the library is looked for, in order: the path in the environment variable HIPRIM_LIBRARY;
a libhiprim.so* next to this package (copied there by hand or by a wheel build); the system
loader's search path (LD_LIBRARY_PATH, ldconfig) as libhiprim.so.0, then libhiprim.so.
"""
import ctypes
import glob
import os

_H = ctypes.c_void_p  # every opaque handle and descriptor
_P = ctypes.c_void_p
_I = ctypes.c_int
_S = ctypes.c_size_t
_D = ctypes.c_double
_PI = ctypes.POINTER(ctypes.c_int)
_CS = ctypes.c_char_p

# name: argument types; every function returns hiprimStatus_t (int) unless listed in _RESTYPES.
_SIGNATURES = {
    "hiprimGetVersion": [_PI, _PI, _PI],
    "hiprimGetErrorString": [_I],
    "hiprimCreateWithBackend": [ctypes.POINTER(_H), _I],
    "hiprimDestroy": [_H],
    "hiprimSetStream": [_H, _P],
    "hiprimGetLastErrorMessage": [_H],
    "hiprimGetLastSolverName": [_H],
    "hiprimCreateTensorDescriptor": [ctypes.POINTER(_H)],
    "hiprimDestroyTensorDescriptor": [_H],
    "hiprimSetTensorDescriptor": [_H, _I, _I, _PI, _PI],
    "hiprimCreateConvolutionDescriptor": [ctypes.POINTER(_H)],
    "hiprimDestroyConvolutionDescriptor": [_H],
    "hiprimInitConvolutionNdDescriptor": [_H, _I, _PI, _PI, _PI, _I],
    "hiprimSetConvolutionGroupCount": [_H, _I],
    "hiprimConvolutionForwardGetWorkSpaceSize": [_H, _H, _H, _H, _H, ctypes.POINTER(_S)],
    "hiprimConvolutionBackwardDataGetWorkSpaceSize": [_H, _H, _H, _H, _H, ctypes.POINTER(_S)],
    "hiprimConvolutionBackwardWeightsGetWorkSpaceSize": [_H, _H, _H, _H, _H, ctypes.POINTER(_S)],
    "hiprimConvolutionForward": [_H, _P, _H, _P, _H, _P, _H, _P, _H, _P, _P, _S],
    "hiprimConvolutionBackwardData": [_H, _P, _H, _P, _H, _P, _H, _P, _H, _P, _P, _S],
    "hiprimConvolutionBackwardWeights": [_H, _P, _H, _P, _H, _P, _H, _P, _H, _P, _P, _S],
    "hiprimBatchNormalizationForwardTraining":
        [_H, _I, _P, _P, _H, _P, _H, _P, _H, _P, _P, _D, _P, _P, _D, _P, _P],
    "hiprimBatchNormalizationForwardInference": [_H, _I, _P, _P, _H, _P, _H, _P, _H, _P, _P, _P, _P, _D],
    "hiprimBatchNormalizationBackward":
        [_H, _I, _P, _P, _P, _P, _H, _P, _H, _P, _H, _P, _H, _P, _P, _P, _D, _P, _P],
    "hiprimCreateActivationDescriptor": [ctypes.POINTER(_H)],
    "hiprimDestroyActivationDescriptor": [_H],
    "hiprimSetActivationDescriptor": [_H, _I, _D, _D, _D],
    "hiprimActivationForward": [_H, _H, _P, _H, _P, _P, _H, _P],
    "hiprimActivationBackward": [_H, _H, _P, _H, _P, _H, _P, _H, _P, _P, _H, _P],
    "hiprimSoftmaxForward": [_H, _P, _H, _P, _P, _H, _P, _I, _I],
    "hiprimSoftmaxBackward": [_H, _P, _H, _P, _H, _P, _P, _H, _P, _I, _I],
    "hiprimProblemTensorCount": [_H, _CS, _PI],
    "hiprimProblemTensorInfo": [_H, _CS, _I, ctypes.POINTER(_CS), ctypes.POINTER(_S), _PI],
    "hiprimProblemWorkSpaceSize": [_H, _CS, ctypes.POINTER(_S)],
    "hiprimRunProblem": [_H, _CS, ctypes.POINTER(_P), _I, _P, _S],
}
_RESTYPES = {"hiprimGetVersion": None, "hiprimGetErrorString": _CS, "hiprimGetLastErrorMessage": _CS,
             "hiprimGetLastSolverName": _CS}


def _candidates():
    env = os.environ.get("HIPRIM_LIBRARY")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    local = sorted(glob.glob(os.path.join(here, "libhiprim.so*")), key=len)
    return local + ["libhiprim.so.0", "libhiprim.so"], False


def load():
    """The loaded library with its functions declared; OSError naming every place tried."""
    names, from_env = _candidates()
    errors = []
    for name in names:
        try:
            lib = ctypes.CDLL(name)
        except OSError as e:
            errors.append(f"{name}: {e}")
            continue
        for fn, args in _SIGNATURES.items():
            f = getattr(lib, fn)
            f.argtypes = args
            f.restype = _RESTYPES.get(fn, ctypes.c_int)
        return lib
    where = "HIPRIM_LIBRARY" if from_env else "next to the package, then the system loader"
    raise OSError(f"libhiprim.so could not be loaded ({where}); tried:\n  " + "\n  ".join(errors) +
                  "\nSet HIPRIM_LIBRARY to the library's path (e.g. build/api/libhiprim.so).")


_lib = None


def lib():
    global _lib
    if _lib is None:
        _lib = load()
    return _lib
