/* hiprim's C API (convolution, batch norm, activations, softmax, fusion plans, and every primitive
 * by its problem string), shaped like MIOpen's miopen.h where it has a counterpart. Every call
 * returns a status; no exception crosses this boundary; every pointer and size is checked before
 * anything runs, and a refused call writes nothing. The message of a
 * handle's last failed call: hiprimGetLastErrorMessage.
 *
 * A handle runs on one backend: hiprimBackendDevice (the GPU solvers; pointers are device memory,
 * calls are enqueued on the handle's stream, asynchronous) or hiprimBackendHost (the CPU reference
 * solvers; pointers are host memory, calls return when done). Solver choice is immediate: the
 * first solver of the backend's registry that takes the problem (HIPRIM_SOLVER=glob restricts the
 * choice; hiprimGetLastSolverName says which ran). HIPRIM_LOG_CMD=1 prints, per convolution call,
 * the `hiprim repro` line that reruns and verifies the same problem from the shell. The entry points
 * without a workspace argument (batch norm, activations, softmax) give a solver that needs one the
 * handle's own workspace (its backend's memory, grown on demand, used in the handle's stream order).
 *
 * Tensors: 4-D (N, C, H, W) or 5-D (N, C, D, H, W) dims with packed strides, channels first (NCHW)
 * or channels last (NHWC); the filter uses the same channel order as x and y. Data types: fp32,
 * fp16, bf16 (16-bit types are stored as their bit patterns). */
#ifndef HIPRIM_HIPRIM_H
#define HIPRIM_HIPRIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  hiprimStatusSuccess = 0,
  hiprimStatusNotInitialized = 1, /* the backend cannot run here (e.g. no usable GPU) */
  hiprimStatusInvalidValue = 2,   /* a null pointer or an argument out of range */
  hiprimStatusBadParm = 3,        /* descriptors that do not describe a valid problem, or disagree */
  hiprimStatusNotImplemented = 4, /* a valid request this version does not do (e.g. beta != 0) */
  hiprimStatusUnsupported = 5,    /* no solver of the backend takes the problem */
  hiprimStatusInternalError = 6,  /* a failed device call or another runtime error */
} hiprimStatus_t;

typedef enum { hiprimFloat = 0, hiprimHalf = 1, hiprimBFloat16 = 2 } hiprimDataType_t;
typedef enum { hiprimBackendDevice = 0, hiprimBackendHost = 1 } hiprimBackend_t;
typedef enum { hiprimConvolution = 0, hiprimTranspose = 1 } hiprimConvolutionMode_t;

typedef struct hiprimHandle* hiprimHandle_t;
typedef struct hiprimTensorDescriptor* hiprimTensorDescriptor_t;
typedef struct hiprimConvolutionDescriptor* hiprimConvolutionDescriptor_t;

/* The library's version (PROJECT_VERSION of the build; libhiprim.so.<major> is its SONAME). Any
 * pointer may be null. */
void hiprimGetVersion(int* major, int* minor, int* patch);

/* The status's name and meaning; never null. */
const char* hiprimGetErrorString(hiprimStatus_t status);

/* hiprimCreate: the device backend when a GPU can be used, else the host backend. */
hiprimStatus_t hiprimCreate(hiprimHandle_t* handle);
hiprimStatus_t hiprimCreateWithBackend(hiprimHandle_t* handle, hiprimBackend_t backend);
hiprimStatus_t hiprimDestroy(hiprimHandle_t handle);
hiprimStatus_t hiprimGetBackend(hiprimHandle_t handle, hiprimBackend_t* backend);
/* stream: a hipStream_t / cudaStream_t of the device backend (null: the default stream). */
hiprimStatus_t hiprimSetStream(hiprimHandle_t handle, void* stream);
hiprimStatus_t hiprimGetStream(hiprimHandle_t handle, void** stream);
/* The message of the handle's last failed call ("" after a success); valid until the next call. */
const char* hiprimGetLastErrorMessage(hiprimHandle_t handle);
/* The solver of the handle's last convolution call ("" before one). */
const char* hiprimGetLastSolverName(hiprimHandle_t handle);

hiprimStatus_t hiprimCreateTensorDescriptor(hiprimTensorDescriptor_t* desc);
hiprimStatus_t hiprimDestroyTensorDescriptor(hiprimTensorDescriptor_t desc);
/* Packed NCHW. */
hiprimStatus_t hiprimSet4dTensorDescriptor(hiprimTensorDescriptor_t desc, hiprimDataType_t type, int n, int c, int h, int w);
/* nb_dims 4 or 5; strides packed channels first or channels last (others: hiprimStatusBadParm). */
hiprimStatus_t hiprimSetTensorDescriptor(hiprimTensorDescriptor_t desc, hiprimDataType_t type, int nb_dims, const int* dims,
                                         const int* strides);

hiprimStatus_t hiprimCreateConvolutionDescriptor(hiprimConvolutionDescriptor_t* desc);
hiprimStatus_t hiprimDestroyConvolutionDescriptor(hiprimConvolutionDescriptor_t desc);
/* 2-D: pad, stride (u, v) and dilation per axis (H, W). */
hiprimStatus_t hiprimInitConvolutionDescriptor(hiprimConvolutionDescriptor_t desc, hiprimConvolutionMode_t mode, int pad_h,
                                               int pad_w, int stride_h, int stride_w, int dilation_h, int dilation_w);
/* n spatial axes (2 or 3), in the order of the tensors' spatial dims. */
hiprimStatus_t hiprimInitConvolutionNdDescriptor(hiprimConvolutionDescriptor_t desc, int n, const int* pads, const int* strides,
                                                 const int* dilations, hiprimConvolutionMode_t mode);
hiprimStatus_t hiprimSetConvolutionGroupCount(hiprimConvolutionDescriptor_t desc, int groups);

/* The workspace the chosen solver needs, in bytes. */
hiprimStatus_t hiprimConvolutionForwardGetWorkSpaceSize(hiprimHandle_t handle, hiprimTensorDescriptor_t w_desc,
                                                        hiprimTensorDescriptor_t x_desc, hiprimConvolutionDescriptor_t conv_desc,
                                                        hiprimTensorDescriptor_t y_desc, size_t* workspace_size);
hiprimStatus_t hiprimConvolutionBackwardDataGetWorkSpaceSize(hiprimHandle_t handle, hiprimTensorDescriptor_t dy_desc,
                                                             hiprimTensorDescriptor_t w_desc, hiprimConvolutionDescriptor_t conv_desc,
                                                             hiprimTensorDescriptor_t dx_desc, size_t* workspace_size);
hiprimStatus_t hiprimConvolutionBackwardWeightsGetWorkSpaceSize(hiprimHandle_t handle, hiprimTensorDescriptor_t dy_desc,
                                                                hiprimTensorDescriptor_t x_desc,
                                                                hiprimConvolutionDescriptor_t conv_desc,
                                                                hiprimTensorDescriptor_t dw_desc, size_t* workspace_size);

/* y = alpha * conv(x, w) + beta * y; this version takes alpha = 1, beta = 0 only (else
 * hiprimStatusNotImplemented). alpha and beta point to floats. */
hiprimStatus_t hiprimConvolutionForward(hiprimHandle_t handle, const void* alpha, hiprimTensorDescriptor_t x_desc, const void* x,
                                        hiprimTensorDescriptor_t w_desc, const void* w, hiprimConvolutionDescriptor_t conv_desc,
                                        const void* beta, hiprimTensorDescriptor_t y_desc, void* y, void* workspace,
                                        size_t workspace_size);
hiprimStatus_t hiprimConvolutionBackwardData(hiprimHandle_t handle, const void* alpha, hiprimTensorDescriptor_t dy_desc,
                                             const void* dy, hiprimTensorDescriptor_t w_desc, const void* w,
                                             hiprimConvolutionDescriptor_t conv_desc, const void* beta,
                                             hiprimTensorDescriptor_t dx_desc, void* dx, void* workspace, size_t workspace_size);
hiprimStatus_t hiprimConvolutionBackwardWeights(hiprimHandle_t handle, const void* alpha, hiprimTensorDescriptor_t dy_desc,
                                                const void* dy, hiprimTensorDescriptor_t x_desc, const void* x,
                                                hiprimConvolutionDescriptor_t conv_desc, const void* beta,
                                                hiprimTensorDescriptor_t dw_desc, void* dw, void* workspace, size_t workspace_size);

/* Batch normalization, as MIOpen's: x, y (dy, dx) 4-D or 5-D; the parameters (scale, bias and the
 * statistics) described by bn_desc: [1, C, 1, 1] (spatial) or [1, C, H, W] (per-activation), fp32
 * (or the data's type); alpha = 1 and beta = 0 only. Forward training updates running_mean/var
 * with exp_avg_factor (momentum) and writes save_mean, save_inv_variance (1 / sqrt(var + eps)). */
typedef enum { hiprimBNPerActivation = 0, hiprimBNSpatial = 1 } hiprimBatchNormMode_t;
hiprimStatus_t hiprimBatchNormalizationForwardTraining(hiprimHandle_t handle, hiprimBatchNormMode_t mode, const void* alpha,
                                                       const void* beta, hiprimTensorDescriptor_t x_desc, const void* x,
                                                       hiprimTensorDescriptor_t y_desc, void* y, hiprimTensorDescriptor_t bn_desc,
                                                       const void* scale, const void* bias, double exp_avg_factor, void* running_mean,
                                                       void* running_variance, double epsilon, void* save_mean,
                                                       void* save_inv_variance);
hiprimStatus_t hiprimBatchNormalizationForwardInference(hiprimHandle_t handle, hiprimBatchNormMode_t mode, const void* alpha,
                                                        const void* beta, hiprimTensorDescriptor_t x_desc, const void* x,
                                                        hiprimTensorDescriptor_t y_desc, void* y, hiprimTensorDescriptor_t bn_desc,
                                                        const void* scale, const void* bias, const void* estimated_mean,
                                                        const void* estimated_variance, double epsilon);
hiprimStatus_t hiprimBatchNormalizationBackward(hiprimHandle_t handle, hiprimBatchNormMode_t mode, const void* alpha_data,
                                                const void* beta_data, const void* alpha_param, const void* beta_param,
                                                hiprimTensorDescriptor_t x_desc, const void* x, hiprimTensorDescriptor_t dy_desc,
                                                const void* dy, hiprimTensorDescriptor_t dx_desc, void* dx,
                                                hiprimTensorDescriptor_t bn_desc, const void* scale, void* result_scale_diff,
                                                void* result_bias_diff, double epsilon, const void* saved_mean,
                                                const void* saved_inv_variance);

/* Activations: modes 0..9 in MIOpen's miopenActivationMode_t order, then hiprim's GELU (erf and tanh
 * forms) and SiLU; alpha, beta, gamma with MIOpen's meaning (core/activ_problem.hpp). Backward
 * computes dx = dy * f'(x) from x (y, as MIOpen passes it, is checked but not read). */
typedef enum {
  hiprimActivationPASTHRU = 0, hiprimActivationLOGISTIC = 1, hiprimActivationTANH = 2, hiprimActivationRELU = 3,
  hiprimActivationSOFTRELU = 4, hiprimActivationABS = 5, hiprimActivationPOWER = 6, hiprimActivationCLIPPEDRELU = 7,
  hiprimActivationLEAKYRELU = 8, hiprimActivationELU = 9, hiprimActivationGELU = 10, hiprimActivationGELU_TANH = 11,
  hiprimActivationSILU = 12
} hiprimActivationMode_t;
typedef struct hiprimActivationDescriptor* hiprimActivationDescriptor_t;
hiprimStatus_t hiprimCreateActivationDescriptor(hiprimActivationDescriptor_t* desc);
hiprimStatus_t hiprimDestroyActivationDescriptor(hiprimActivationDescriptor_t desc);
hiprimStatus_t hiprimSetActivationDescriptor(hiprimActivationDescriptor_t desc, hiprimActivationMode_t mode, double alpha,
                                             double beta, double gamma);
hiprimStatus_t hiprimActivationForward(hiprimHandle_t handle, hiprimActivationDescriptor_t desc, const void* alpha,
                                       hiprimTensorDescriptor_t x_desc, const void* x, const void* beta,
                                       hiprimTensorDescriptor_t y_desc, void* y);
hiprimStatus_t hiprimActivationBackward(hiprimHandle_t handle, hiprimActivationDescriptor_t desc, const void* alpha,
                                        hiprimTensorDescriptor_t y_desc, const void* y, hiprimTensorDescriptor_t dy_desc,
                                        const void* dy, hiprimTensorDescriptor_t x_desc, const void* x, const void* beta,
                                        hiprimTensorDescriptor_t dx_desc, void* dx);

/* Softmax as MIOpen's _V2 calls: algorithm fast / accurate / log, mode instance (over C*H*W per n)
 * or channel (over C per pixel); backward from the forward output y and dy. */
typedef enum { hiprimSoftmaxFast = 0, hiprimSoftmaxAccurate = 1, hiprimSoftmaxLog = 2 } hiprimSoftmaxAlgorithm_t;
typedef enum { hiprimSoftmaxModeInstance = 0, hiprimSoftmaxModeChannel = 1 } hiprimSoftmaxMode_t;
hiprimStatus_t hiprimSoftmaxForward(hiprimHandle_t handle, const void* alpha, hiprimTensorDescriptor_t x_desc, const void* x,
                                    const void* beta, hiprimTensorDescriptor_t y_desc, void* y, hiprimSoftmaxAlgorithm_t algorithm,
                                    hiprimSoftmaxMode_t mode);
hiprimStatus_t hiprimSoftmaxBackward(hiprimHandle_t handle, const void* alpha, hiprimTensorDescriptor_t y_desc, const void* y,
                                     hiprimTensorDescriptor_t dy_desc, const void* dy, const void* beta,
                                     hiprimTensorDescriptor_t dx_desc, void* dx, hiprimSoftmaxAlgorithm_t algorithm,
                                     hiprimSoftmaxMode_t mode);

/* Every primitive by its canonical problem string (the grammar of `hiprim repro`, reports/README.md),
 * e.g. "activ fwd relu bf16 nhwc n32 c64 in56x56": its tensors, in the order the buffers are passed,
 * with their names, byte sizes (dtype x storage elements) and roles (0 input, 1 output, 2 both). */
hiprimStatus_t hiprimProblemTensorCount(hiprimHandle_t handle, const char* problem, int* count);
hiprimStatus_t hiprimProblemTensorInfo(hiprimHandle_t handle, const char* problem, int index, const char** name, size_t* bytes,
                                       int* role);
hiprimStatus_t hiprimProblemWorkSpaceSize(hiprimHandle_t handle, const char* problem, size_t* workspace_size);
/* Runs the problem with the backend's first solver that takes it; buffers[i] is tensor i. */
hiprimStatus_t hiprimRunProblem(hiprimHandle_t handle, const char* problem, void* const* buffers, int buffer_count, void* workspace,
                                size_t workspace_size);

/* Fusion plans, as MIOpen's fusion API: a chain conv -> [bias] -> [batch-norm inference] -> [add]
 * -> [activation] (core/fusion_problem.hpp), each step at most once and in this order.
 *   v = conv(x, w); v += bias[k]; v = (v - mean[k]) * scale[k] / sqrt(var[k] + eps) + shift[k];
 *   v = alpha * v + beta * residual; y = f(v)
 * A plan is made for an input descriptor x; its ops are added in chain order, each from copies of
 * its descriptors (they may be destroyed afterwards; the ops belong to the plan and go with it):
 *   conv: the convolution and w descriptors (forward, mode hiprimConvolution);
 *   bias: b_desc [1, K, 1, 1] of the data type; batch norm: hiprimBNSpatial, bn_desc [1, K, 1, 1]
 *   fp32 (scale, shift, mean, variance), epsilon; add (hiprim's residual add): residual_desc of y's
 *   dims, type and channel order, alpha, beta; activation: an activation descriptor.
 * hiprimCompileFusionPlan checks the chain and the descriptors (hiprimStatusBadParm naming the
 * fault: an op out of order or given twice, no conv first, disagreeing dims or types) and picks the
 * solver by immediate mode (hiprimStatusUnsupported with every solver's reason when none takes the
 * plan's problem). Adding an op or changing the rounding makes the plan uncompiled again. Unlike
 * MIOpen, epsilon and the add's alpha/beta belong to the ops (they are part of the compiled
 * problem), the arguments carry only the tensors (no alpha/beta scaling: only 1, 0 exists) and the
 * activation takes no arguments. Execute checks x_desc and y_desc against the plan and needs the
 * arguments of every op with tensors; it writes y only. workspace: as the convolution calls, or
 * null for the handle's own. HIPRIM_LOG_CMD=1 prints the `hiprim repro "fusion ..."` line. */
typedef struct hiprimFusionPlan* hiprimFusionPlanDescriptor_t;
typedef struct hiprimFusionOp* hiprimFusionOpDescriptor_t;
typedef struct hiprimOperatorArgs* hiprimOperatorArgs_t;
/* fused: intermediates in fp32, one rounding to the data type at the end (the default); unfused:
 * every step's result rounded to the data type. */
typedef enum { hiprimFusionRoundingFused = 0, hiprimFusionRoundingUnfused = 1 } hiprimFusionRounding_t;

hiprimStatus_t hiprimCreateFusionPlan(hiprimFusionPlanDescriptor_t* plan, hiprimTensorDescriptor_t x_desc);
hiprimStatus_t hiprimDestroyFusionPlan(hiprimFusionPlanDescriptor_t plan);
hiprimStatus_t hiprimSetFusionPlanRounding(hiprimFusionPlanDescriptor_t plan, hiprimFusionRounding_t rounding);
hiprimStatus_t hiprimCreateOpConvForward(hiprimFusionPlanDescriptor_t plan, hiprimFusionOpDescriptor_t* op,
                                         hiprimConvolutionDescriptor_t conv_desc, hiprimTensorDescriptor_t w_desc);
hiprimStatus_t hiprimCreateOpBiasForward(hiprimFusionPlanDescriptor_t plan, hiprimFusionOpDescriptor_t* op, hiprimTensorDescriptor_t b_desc);
hiprimStatus_t hiprimCreateOpBatchNormInference(hiprimFusionPlanDescriptor_t plan, hiprimFusionOpDescriptor_t* op,
                                                hiprimBatchNormMode_t mode, hiprimTensorDescriptor_t bn_desc, double epsilon);
hiprimStatus_t hiprimCreateOpAddForward(hiprimFusionPlanDescriptor_t plan, hiprimFusionOpDescriptor_t* op,
                                        hiprimTensorDescriptor_t residual_desc, double alpha, double beta);
hiprimStatus_t hiprimCreateOpActivationForward(hiprimFusionPlanDescriptor_t plan, hiprimFusionOpDescriptor_t* op,
                                               hiprimActivationDescriptor_t activ_desc);
hiprimStatus_t hiprimCompileFusionPlan(hiprimHandle_t handle, hiprimFusionPlanDescriptor_t plan);
/* Of a compiled plan: its canonical problem string (the `hiprim repro` grammar) and its solver;
 * valid while the plan lives unchanged. */
hiprimStatus_t hiprimFusionPlanGetProblem(hiprimFusionPlanDescriptor_t plan, const char** problem);
hiprimStatus_t hiprimFusionPlanGetSolverName(hiprimFusionPlanDescriptor_t plan, const char** solver);
hiprimStatus_t hiprimFusionPlanGetWorkSpaceSize(hiprimHandle_t handle, hiprimFusionPlanDescriptor_t plan, size_t* workspace_size);

hiprimStatus_t hiprimCreateOperatorArgs(hiprimOperatorArgs_t* args);
hiprimStatus_t hiprimDestroyOperatorArgs(hiprimOperatorArgs_t args);
/* The tensors of one op (setting them again replaces them); the op's kind must match the call. */
hiprimStatus_t hiprimSetOpArgsConvForward(hiprimOperatorArgs_t args, hiprimFusionOpDescriptor_t op, const void* w);
hiprimStatus_t hiprimSetOpArgsBiasForward(hiprimOperatorArgs_t args, hiprimFusionOpDescriptor_t op, const void* bias);
hiprimStatus_t hiprimSetOpArgsBatchNormInference(hiprimOperatorArgs_t args, hiprimFusionOpDescriptor_t op, const void* scale,
                                                 const void* shift, const void* estimated_mean, const void* estimated_variance);
hiprimStatus_t hiprimSetOpArgsAddForward(hiprimOperatorArgs_t args, hiprimFusionOpDescriptor_t op, const void* residual);
hiprimStatus_t hiprimExecuteFusionPlan(hiprimHandle_t handle, hiprimFusionPlanDescriptor_t plan, hiprimTensorDescriptor_t x_desc,
                                       const void* x, hiprimTensorDescriptor_t y_desc, void* y, hiprimOperatorArgs_t args,
                                       void* workspace, size_t workspace_size);

#ifdef __cplusplus
}
#endif

#endif /* HIPRIM_HIPRIM_H */
