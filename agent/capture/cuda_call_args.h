#pragma once
// Reads what a CUDA call was asked to do (launch configuration, copy size and
// direction, stream) from the parameter struct CUPTI hands its callback.
#include <cupti.h>

#include "record/records.h"

namespace prof {

// Fills the args part of `record` (args, grid, block, shared_bytes, bytes,
// copy_kind, stream) for the calls it knows; leaves args = none otherwise.
void read_call_args(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params,
                    ApiCallRecord& record);

}  // namespace prof
