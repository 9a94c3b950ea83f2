// The cuDNN 9.19 backend ABI as the graph-API peer uses it (internal to bench/cudnn_graph*.cpp): the
// entry points resolved with dlsym, the enum values declared as constants (the build includes no
// cuDNN header), and an owning wrapper of one backend descriptor whose every failing call throws a
// RuntimeError naming the call, the descriptor type, the attribute and cuDNN's status and last error.
// Enums cross the C ABI as int (x86-64), booleans as C++ bool (1 byte, cuDNN's `bool`).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "bench/cudnn_graph.hpp"

namespace hiprim::gpu {

namespace cudnn_backend {

using Status = int;  // cudnnStatus_t (cudnn_graph.h)
inline constexpr Status kSuccess = 0;

// cudnn_graph.h: cudnnDataType_t, cudnnConvolutionMode_t.
inline constexpr int kDataFloat = 0, kDataHalf = 2, kDataBfloat16 = 9;
inline constexpr int kCrossCorrelation = 1;

// cudnn_graph.h: cudnnBackendDescriptorType_t.
enum DescType : int {
  kDescPointwise = 0,
  kDescConvolution = 1,
  kDescEngine = 2,
  kDescEngineCfg = 3,
  kDescEngineHeur = 4,
  kDescExecutionPlan = 5,
  kDescKnobChoice = 7,
  kDescOpConvForward = 10,
  kDescOpConvBackwardFilter = 11,
  kDescOpConvBackwardData = 12,
  kDescOpPointwise = 13,
  kDescOperationGraph = 15,
  kDescVariantPack = 16,
  kDescTensor = 17,
};
const char* desc_type_name(DescType t);  // "TENSOR", "EXECUTION_PLAN", ...

// cudnn_graph.h: cudnnBackendAttributeType_t.
enum AttrType : int {
  kTypeHandle = 0,
  kTypeDataType = 1,
  kTypeBoolean = 2,
  kTypeInt64 = 3,
  kTypeFloat = 4,
  kTypeVoidPtr = 6,
  kTypeConvolutionMode = 7,
  kTypeHeurMode = 8,
  kTypeKnobType = 9,
  kTypeNumericalNote = 11,
  kTypePointwiseMode = 14,
  kTypeBackendDescriptor = 15,
  kTypeBehaviorNote = 19,
};

// cudnn_graph.h: cudnnBackendAttributeName_t, each value with its name for error messages.
struct Attr {
  int id;
  const char* name;
};
inline constexpr Attr kPointwiseMode{0, "POINTWISE_MODE"}, kPointwiseMathPrec{1, "POINTWISE_MATH_PREC"};
inline constexpr Attr kConvCompType{100, "CONVOLUTION_COMP_TYPE"}, kConvMode{101, "CONVOLUTION_CONV_MODE"},
    kConvDilations{102, "CONVOLUTION_DILATIONS"}, kConvFilterStrides{103, "CONVOLUTION_FILTER_STRIDES"},
    kConvPostPaddings{104, "CONVOLUTION_POST_PADDINGS"}, kConvPrePaddings{105, "CONVOLUTION_PRE_PADDINGS"},
    kConvSpatialDims{106, "CONVOLUTION_SPATIAL_DIMS"};
inline constexpr Attr kHeurMode{200, "ENGINEHEUR_MODE"}, kHeurOperationGraph{201, "ENGINEHEUR_OPERATION_GRAPH"},
    kHeurResults{202, "ENGINEHEUR_RESULTS"};
inline constexpr Attr kCfgEngine{300, "ENGINECFG_ENGINE"}, kCfgKnobChoices{302, "ENGINECFG_KNOB_CHOICES"};
inline constexpr Attr kPlanHandle{400, "EXECUTION_PLAN_HANDLE"}, kPlanEngineConfig{401, "EXECUTION_PLAN_ENGINE_CONFIG"},
    kPlanWorkspaceSize{402, "EXECUTION_PLAN_WORKSPACE_SIZE"};
inline constexpr Attr kKnobChoiceType{600, "KNOB_CHOICE_KNOB_TYPE"}, kKnobChoiceValue{601, "KNOB_CHOICE_KNOB_VALUE"};
inline constexpr Attr kFwdAlpha{700, "OPERATION_CONVOLUTION_FORWARD_ALPHA"},
    kFwdBeta{701, "OPERATION_CONVOLUTION_FORWARD_BETA"}, kFwdConvDesc{702, "OPERATION_CONVOLUTION_FORWARD_CONV_DESC"},
    kFwdW{703, "OPERATION_CONVOLUTION_FORWARD_W"}, kFwdX{704, "OPERATION_CONVOLUTION_FORWARD_X"},
    kFwdY{705, "OPERATION_CONVOLUTION_FORWARD_Y"};
inline constexpr Attr kBwdDataAlpha{706, "OPERATION_CONVOLUTION_BWD_DATA_ALPHA"},
    kBwdDataBeta{707, "OPERATION_CONVOLUTION_BWD_DATA_BETA"},
    kBwdDataConvDesc{708, "OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC"}, kBwdDataW{709, "OPERATION_CONVOLUTION_BWD_DATA_W"},
    kBwdDataDx{710, "OPERATION_CONVOLUTION_BWD_DATA_DX"}, kBwdDataDy{711, "OPERATION_CONVOLUTION_BWD_DATA_DY"};
inline constexpr Attr kBwdFilterAlpha{712, "OPERATION_CONVOLUTION_BWD_FILTER_ALPHA"},
    kBwdFilterBeta{713, "OPERATION_CONVOLUTION_BWD_FILTER_BETA"},
    kBwdFilterConvDesc{714, "OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC"},
    kBwdFilterDw{715, "OPERATION_CONVOLUTION_BWD_FILTER_DW"}, kBwdFilterX{716, "OPERATION_CONVOLUTION_BWD_FILTER_X"},
    kBwdFilterDy{717, "OPERATION_CONVOLUTION_BWD_FILTER_DY"};
inline constexpr Attr kPwOpDesc{750, "OPERATION_POINTWISE_PW_DESCRIPTOR"}, kPwOpX{751, "OPERATION_POINTWISE_XDESC"},
    kPwOpB{752, "OPERATION_POINTWISE_BDESC"}, kPwOpY{753, "OPERATION_POINTWISE_YDESC"},
    kPwOpAlpha2{755, "OPERATION_POINTWISE_ALPHA2"};
inline constexpr Attr kGraphHandle{800, "OPERATIONGRAPH_HANDLE"}, kGraphOps{801, "OPERATIONGRAPH_OPS"};
inline constexpr Attr kTensorByteAlignment{900, "TENSOR_BYTE_ALIGNMENT"}, kTensorDataType{901, "TENSOR_DATA_TYPE"},
    kTensorDims{902, "TENSOR_DIMENSIONS"}, kTensorStrides{903, "TENSOR_STRIDES"}, kTensorUid{906, "TENSOR_UNIQUE_ID"},
    kTensorIsVirtual{907, "TENSOR_IS_VIRTUAL"}, kTensorIsByValue{908, "TENSOR_IS_BY_VALUE"};
inline constexpr Attr kPackUids{1000, "VARIANT_PACK_UNIQUE_IDS"}, kPackPointers{1001, "VARIANT_PACK_DATA_POINTERS"},
    kPackWorkspace{1003, "VARIANT_PACK_WORKSPACE"};
inline constexpr Attr kEngineGlobalIndex{1301, "ENGINE_GLOBAL_INDEX"},
    kEngineNumericalNote{1303, "ENGINE_NUMERICAL_NOTE"}, kEngineBehaviorNote{1305, "ENGINE_BEHAVIOR_NOTE"};

// cudnn_graph.h: cudnnBackendHeurMode_t.
inline constexpr int kHeurModeFallback = 2, kHeurModeA = 3;

// cudnn_graph.h: cudnnBackendNumericalNote_t (and the TYPE_COUNTs that bound the note and knob arrays).
inline constexpr int kNoteTensorCore = 0, kNoteDownConvertInputs = 1, kNoteReducedPrecisionReduction = 2, kNoteFft = 3,
                     kNoteNondeterministic = 4, kNoteWinograd = 5, kNoteWinograd4x4 = 6, kNoteWinograd6x6 = 7,
                     kNoteWinograd13x13 = 8, kNumericalNoteCount = 10;
inline constexpr int kBehaviorNoteCount = 5;  // cudnnBackendBehaviorNote_t's TYPE_COUNT
inline constexpr int kKnobTypeCount = 44;     // cudnnBackendKnobType_t's CUDNN_KNOB_TYPE_COUNTS

// cudnn_graph.h: cudnnPointwiseMode_t (the modes the epilogue uses).
inline constexpr int kPwAdd = 0, kPwMul = 1, kPwReluFwd = 100, kPwTanhFwd = 101, kPwSigmoidFwd = 102, kPwEluFwd = 103,
                     kPwGeluFwd = 104, kPwSwishFwd = 106;

}  // namespace cudnn_backend

// The entry points (cudnn_graph.h; libcudnn.so.9 exports them all and forwards to its sub-libraries).
struct CudnnGraphPeer::Api {
  using Status = cudnn_backend::Status;
  std::size_t (*GetVersion)();
  const char* (*GetErrorString)(Status);
  void (*GetLastErrorString)(char*, std::size_t);
  Status (*Create)(void**);
  Status (*Destroy)(void*);
  Status (*SetStream)(void*, void*);
  Status (*CreateDescriptor)(int, void**);
  Status (*DestroyDescriptor)(void*);
  Status (*SetAttribute)(void*, int, int, std::int64_t, const void*);
  Status (*GetAttribute)(void*, int, int, std::int64_t, std::int64_t*, void*);
  Status (*Finalize)(void*);
  Status (*Execute)(void*, void*, void*);

  // "CUDNN_STATUS_BAD_PARAM (status 2000): <cuDNN's last error string>"
  std::string describe(Status st) const;
  // Throws RuntimeError "<call> failed while <context>: <describe(st)>" unless st is success.
  void check(Status st, const std::string& call, const std::string& context) const;
};

// One owned backend descriptor. Every method throws RuntimeError naming the call, the descriptor
// type, the attribute and `context` when cuDNN refuses.
class BackendDescriptor {
 public:
  BackendDescriptor() = default;
  BackendDescriptor(const CudnnGraphPeer::Api& api, cudnn_backend::DescType type, const std::string& context);
  ~BackendDescriptor();
  BackendDescriptor(BackendDescriptor&& o) noexcept;
  BackendDescriptor& operator=(BackendDescriptor&& o) noexcept;
  BackendDescriptor(const BackendDescriptor&) = delete;
  BackendDescriptor& operator=(const BackendDescriptor&) = delete;

  void* get() const { return desc_; }
  explicit operator bool() const { return desc_ != nullptr; }
  cudnn_backend::DescType type() const { return type_; }

  void set(cudnn_backend::Attr a, cudnn_backend::AttrType t, std::int64_t count, const void* values,
           const std::string& context);
  // Sets one other descriptor (BACKEND_DESCRIPTOR attribute of one element).
  void set_desc(cudnn_backend::Attr a, const BackendDescriptor& d, const std::string& context);
  // Reads up to `capacity` elements; returns how many the descriptor holds.
  std::int64_t get_into(cudnn_backend::Attr a, cudnn_backend::AttrType t, std::int64_t capacity, void* values,
                        const std::string& context) const;
  void finalize(const std::string& context);
  // Finalize without throwing: the status (plans that fail to finalize are reported, not fatal).
  cudnn_backend::Status try_finalize();

 private:
  const CudnnGraphPeer::Api* api_ = nullptr;
  cudnn_backend::DescType type_ = cudnn_backend::kDescTensor;
  void* desc_ = nullptr;
};

}  // namespace hiprim::gpu
