# Sourced by the GPU-machine scripts that open cuDNN (the bench's peer): finds torch's copy of
# libcudnn.so.9 in site-packages and puts its sub-libraries and their NVIDIA dependencies (beside it)
# on LD_LIBRARY_PATH. HIPRIM_CUDNN_LIB, when set, wins; without torch the loader path is used.
if [ -z "${HIPRIM_CUDNN_LIB:-}" ]; then
  site=$(python3 -c "import torch,os;print(os.path.dirname(os.path.dirname(torch.__file__)))" 2>/dev/null || true)
  if [ -n "$site" ] && [ -e "$site/nvidia/cudnn/lib/libcudnn.so.9" ]; then
    export HIPRIM_CUDNN_LIB="$site/nvidia/cudnn/lib/libcudnn.so.9"
    for d in "$site"/nvidia/*/lib; do LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; done
    export LD_LIBRARY_PATH
  fi
fi
