/* hiprim.h compiles as C: a C program creates a host handle, sets a descriptor and reads the
 * status strings (called from test_c_api.cpp). */
#include "hiprim/hiprim.h"

int hiprim_c_smoke(void) {
  hiprimHandle_t h = 0;
  hiprimTensorDescriptor_t t = 0;
  int ok = hiprimCreateWithBackend(&h, hiprimBackendHost) == hiprimStatusSuccess;
  ok = ok && hiprimCreateTensorDescriptor(&t) == hiprimStatusSuccess;
  ok = ok && hiprimSet4dTensorDescriptor(t, hiprimFloat, 1, 2, 3, 4) == hiprimStatusSuccess;
  ok = ok && hiprimGetErrorString(hiprimStatusBadParm)[0] != '\0';
  ok = ok && hiprimDestroyTensorDescriptor(t) == hiprimStatusSuccess;
  ok = ok && hiprimDestroy(h) == hiprimStatusSuccess;
  return ok;
}
