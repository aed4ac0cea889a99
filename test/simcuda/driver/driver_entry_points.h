// Every driver entry point simcuda implements, one row each. Included (X-macro
// style) wherever the list is needed, so that a function is named once:
//   entry_points.cpp   the exported function and its _ptds/_ptsz twin, each one
//                      traced call to simcuda::impl::<symbol>
//   driver_impl.h      the declarations of those impl functions
//   proc_address.cpp   cuGetProcAddress's (base name, version) table
//   runtime            declarations of the twins, which cuda.h hides
//
// Rows (`since`: the CUDA version that introduced the ABI variant, as
// cuGetProcAddress counts; `params` and `args` parenthesised, in the order of the
// generated *_params struct):
//   SIM_FN(base, since, symbol, params, args)
//   SIM_FN_PT(base, since, symbol, suffix, params, args)   also symbol_suffix,
//       the per-thread-default-stream twin; impl gets `bool per_thread` first
//   SIM_FN_NOARGS(base, since, symbol)                     no params struct
//   SIM_LAUNCH_PT(base, since, symbol, suffix, params, args, function)  as
//       SIM_FN_PT; CUPTI's symbolName is the name of the CUfunction `function`
//   SIM_PROC_ALIAS(base, since, symbol)                    cuGetProcAddress only
// The includer defines all five; they are undefined at the end.

// cuda.h maps some base names to a versioned symbol; rows name symbols exactly.
// Only in the driver's own build: the runtime's calls must keep cuda.h's mapping.
#ifdef __CUDA_API_VERSION_INTERNAL
#undef cuCtxCreate
#undef cuCtxSynchronize
#undef cuEventElapsedTime
#undef cuGetProcAddress
#undef cuLinkCreate
#undef cuLinkAddData
#endif

// ---- initialisation, versions, errors
SIM_FN(cuInit, 2000, cuInit, (unsigned int Flags), (Flags))
SIM_FN(cuDriverGetVersion, 2020, cuDriverGetVersion, (int* driverVersion), (driverVersion))
SIM_FN(cuGetErrorString, 6000, cuGetErrorString, (CUresult error, const char** pStr), (error, pStr))
SIM_FN(cuGetErrorName, 6000, cuGetErrorName, (CUresult error, const char** pStr), (error, pStr))
SIM_FN(cuGetProcAddress, 11030, cuGetProcAddress,
       (const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags), (symbol, pfn, cudaVersion, flags))
SIM_FN(cuGetProcAddress, 12000, cuGetProcAddress_v2,
       (const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
        CUdriverProcAddressQueryResult* symbolStatus),
       (symbol, pfn, cudaVersion, flags, symbolStatus))

// ---- devices
SIM_FN(cuDeviceGet, 2000, cuDeviceGet, (CUdevice* device, int ordinal), (device, ordinal))
SIM_FN(cuDeviceGetCount, 2000, cuDeviceGetCount, (int* count), (count))
SIM_FN(cuDeviceGetName, 2000, cuDeviceGetName, (char* name, int len, CUdevice dev), (name, len, dev))
SIM_FN(cuDeviceGetAttribute, 2000, cuDeviceGetAttribute, (int* pi, CUdevice_attribute attrib, CUdevice dev),
       (pi, attrib, dev))
SIM_FN(cuDeviceTotalMem, 3020, cuDeviceTotalMem_v2, (size_t* bytes, CUdevice dev), (bytes, dev))
SIM_FN(cuDeviceGetUuid, 9020, cuDeviceGetUuid, (CUuuid* uuid, CUdevice dev), (uuid, dev))
SIM_FN(cuDeviceGetUuid, 11040, cuDeviceGetUuid_v2, (CUuuid* uuid, CUdevice dev), (uuid, dev))
SIM_FN(cuDeviceComputeCapability, 2000, cuDeviceComputeCapability, (int* major, int* minor, CUdevice dev),
       (major, minor, dev))

// ---- contexts
SIM_FN(cuDevicePrimaryCtxRetain, 7000, cuDevicePrimaryCtxRetain, (CUcontext* pctx, CUdevice dev), (pctx, dev))
SIM_FN(cuDevicePrimaryCtxRelease, 11000, cuDevicePrimaryCtxRelease_v2, (CUdevice dev), (dev))
SIM_FN(cuDevicePrimaryCtxReset, 11000, cuDevicePrimaryCtxReset_v2, (CUdevice dev), (dev))
SIM_FN(cuDevicePrimaryCtxGetState, 7000, cuDevicePrimaryCtxGetState, (CUdevice dev, unsigned int* flags, int* active),
       (dev, flags, active))
SIM_FN(cuDevicePrimaryCtxSetFlags, 11000, cuDevicePrimaryCtxSetFlags_v2, (CUdevice dev, unsigned int flags),
       (dev, flags))
SIM_FN(cuCtxCreate, 3020, cuCtxCreate_v2, (CUcontext* pctx, unsigned int flags, CUdevice dev), (pctx, flags, dev))
SIM_FN(cuCtxCreate, 12050, cuCtxCreate_v4,
       (CUcontext* pctx, CUctxCreateParams* ctxCreateParams, unsigned int flags, CUdevice dev),
       (pctx, ctxCreateParams, flags, dev))
SIM_FN(cuCtxDestroy, 4000, cuCtxDestroy_v2, (CUcontext ctx), (ctx))
SIM_FN(cuCtxSetCurrent, 4000, cuCtxSetCurrent, (CUcontext ctx), (ctx))
SIM_FN(cuCtxGetCurrent, 4000, cuCtxGetCurrent, (CUcontext* pctx), (pctx))
SIM_FN(cuCtxPushCurrent, 4000, cuCtxPushCurrent_v2, (CUcontext ctx), (ctx))
SIM_FN(cuCtxPopCurrent, 4000, cuCtxPopCurrent_v2, (CUcontext* pctx), (pctx))
SIM_FN(cuCtxGetDevice, 2000, cuCtxGetDevice, (CUdevice* device), (device))
SIM_FN(cuCtxGetId, 12000, cuCtxGetId, (CUcontext ctx, unsigned long long* ctxId), (ctx, ctxId))
SIM_FN_NOARGS(cuCtxSynchronize, 2000, cuCtxSynchronize)
SIM_FN(cuCtxSynchronize, 13000, cuCtxSynchronize_v2, (CUcontext ctx), (ctx))
SIM_FN(cuDeviceGetP2PAttribute, 8000, cuDeviceGetP2PAttribute,
       (int* value, CUdevice_P2PAttribute attrib, CUdevice srcDevice, CUdevice dstDevice),
       (value, attrib, srcDevice, dstDevice))
SIM_FN(cuDeviceCanAccessPeer, 4000, cuDeviceCanAccessPeer, (int* canAccessPeer, CUdevice dev, CUdevice peerDev),
       (canAccessPeer, dev, peerDev))
SIM_FN(cuCtxEnablePeerAccess, 4000, cuCtxEnablePeerAccess, (CUcontext peerContext, unsigned int Flags),
       (peerContext, Flags))
SIM_FN(cuCtxDisablePeerAccess, 4000, cuCtxDisablePeerAccess, (CUcontext peerContext), (peerContext))
SIM_FN(cuCtxSetLimit, 3010, cuCtxSetLimit, (CUlimit limit, size_t value), (limit, value))
SIM_FN(cuCtxGetLimit, 3010, cuCtxGetLimit, (size_t* pvalue, CUlimit limit), (pvalue, limit))
SIM_FN(cuCtxSetCacheConfig, 3020, cuCtxSetCacheConfig, (CUfunc_cache config), (config))
SIM_FN(cuCtxGetCacheConfig, 3020, cuCtxGetCacheConfig, (CUfunc_cache* pconfig), (pconfig))
SIM_FN(cuCtxGetStreamPriorityRange, 5050, cuCtxGetStreamPriorityRange, (int* leastPriority, int* greatestPriority),
       (leastPriority, greatestPriority))

// ---- modules and launches
SIM_FN(cuModuleLoadData, 2000, cuModuleLoadData, (CUmodule* module, const void* image), (module, image))
SIM_FN(cuModuleLoadDataEx, 2010, cuModuleLoadDataEx,
       (CUmodule* module, const void* image, unsigned int numOptions, CUjit_option* options, void** optionValues),
       (module, image, numOptions, options, optionValues))
SIM_FN(cuModuleLoadFatBinary, 2000, cuModuleLoadFatBinary, (CUmodule* module, const void* fatCubin),
       (module, fatCubin))
SIM_FN(cuLibraryLoadData, 12000, cuLibraryLoadData,
       (CUlibrary* library, const void* code, CUjit_option* jitOptions, void** jitOptionsValues,
        unsigned int numJitOptions, CUlibraryOption* libraryOptions, void** libraryOptionValues,
        unsigned int numLibraryOptions),
       (library, code, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues,
        numLibraryOptions))
SIM_FN(cuLibraryUnload, 12000, cuLibraryUnload, (CUlibrary library), (library))
SIM_FN(cuLinkCreate, 6050, cuLinkCreate_v2,
       (unsigned int numOptions, CUjit_option* options, void** optionValues, CUlinkState* stateOut),
       (numOptions, options, optionValues, stateOut))
SIM_FN(cuLinkAddData, 6050, cuLinkAddData_v2,
       (CUlinkState state, CUjitInputType type, void* data, size_t size, const char* name, unsigned int numOptions,
        CUjit_option* options, void** optionValues),
       (state, type, data, size, name, numOptions, options, optionValues))
SIM_FN(cuLinkComplete, 5050, cuLinkComplete, (CUlinkState state, void** cubinOut, size_t* sizeOut),
       (state, cubinOut, sizeOut))
SIM_FN(cuLinkDestroy, 5050, cuLinkDestroy, (CUlinkState state), (state))
SIM_FN(cuModuleUnload, 2000, cuModuleUnload, (CUmodule hmod), (hmod))
SIM_FN(cuModuleGetFunction, 2000, cuModuleGetFunction, (CUfunction* hfunc, CUmodule hmod, const char* name),
       (hfunc, hmod, name))
SIM_FN(cuFuncGetName, 12030, cuFuncGetName, (const char** name, CUfunction hfunc), (name, hfunc))
SIM_FN(cuKernelGetName, 12030, cuKernelGetName, (const char** name, CUkernel hfunc), (name, hfunc))
SIM_FN(cuLibraryGetKernel, 12000, cuLibraryGetKernel, (CUkernel* pKernel, CUlibrary library, const char* name),
       (pKernel, library, name))
SIM_FN(cuModuleGetGlobal, 3020, cuModuleGetGlobal_v2, (CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name),
       (dptr, bytes, hmod, name))
SIM_FN(cuFuncGetAttribute, 2020, cuFuncGetAttribute, (int* pi, CUfunction_attribute attrib, CUfunction hfunc),
       (pi, attrib, hfunc))
SIM_FN(cuFuncSetAttribute, 9000, cuFuncSetAttribute, (CUfunction hfunc, CUfunction_attribute attrib, int value),
       (hfunc, attrib, value))
SIM_FN(cuFuncSetCacheConfig, 3000, cuFuncSetCacheConfig, (CUfunction hfunc, CUfunc_cache config), (hfunc, config))
SIM_FN(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050, cuOccupancyMaxActiveBlocksPerMultiprocessor,
       (int* numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize),
       (numBlocks, func, blockSize, dynamicSMemSize))
SIM_FN(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, 7000, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
       (int* numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags),
       (numBlocks, func, blockSize, dynamicSMemSize, flags))
SIM_FN(cuOccupancyMaxPotentialBlockSize, 6050, cuOccupancyMaxPotentialBlockSize,
       (int* minGridSize, int* blockSize, CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize,
        size_t dynamicSMemSize, int blockSizeLimit),
       (minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit))
SIM_FN_PT(cuLaunchHostFunc, 10000, cuLaunchHostFunc, ptsz, (CUstream hStream, CUhostFn fn, void* userData),
          (hStream, fn, userData))
SIM_FN_PT(cuStreamAddCallback, 5000, cuStreamAddCallback, ptsz,
          (CUstream hStream, CUstreamCallback callback, void* userData, unsigned int flags),
          (hStream, callback, userData, flags))
SIM_LAUNCH_PT(cuLaunchKernel, 4000, cuLaunchKernel, ptsz,
              (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
               unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
               unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra),
              (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
               kernelParams, extra),
              f)
SIM_LAUNCH_PT(cuLaunchKernelEx, 11060, cuLaunchKernelEx, ptsz,
              (const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra),
              (config, f, kernelParams, extra), f)
SIM_LAUNCH_PT(cuLaunchCooperativeKernel, 9000, cuLaunchCooperativeKernel, ptsz,
              (CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
               unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
               unsigned int sharedMemBytes, CUstream hStream, void** kernelParams),
              (f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream,
               kernelParams),
              f)

// ---- memory
SIM_FN(cuMemAlloc, 3020, cuMemAlloc_v2, (CUdeviceptr* dptr, size_t bytesize), (dptr, bytesize))
SIM_FN(cuMemFree, 3020, cuMemFree_v2, (CUdeviceptr dptr), (dptr))
SIM_FN(cuMemAllocManaged, 6000, cuMemAllocManaged, (CUdeviceptr* dptr, size_t bytesize, unsigned int flags),
       (dptr, bytesize, flags))
SIM_FN(cuMemAllocHost, 3020, cuMemAllocHost_v2, (void** pp, size_t bytesize), (pp, bytesize))
SIM_FN(cuMemHostAlloc, 2020, cuMemHostAlloc, (void** pp, size_t bytesize, unsigned int Flags), (pp, bytesize, Flags))
SIM_FN(cuMemFreeHost, 2000, cuMemFreeHost, (void* p), (p))
SIM_FN_PT(cuMemAllocAsync, 11020, cuMemAllocAsync, ptsz, (CUdeviceptr* dptr, size_t bytesize, CUstream hStream),
          (dptr, bytesize, hStream))
SIM_FN_PT(cuMemFreeAsync, 11020, cuMemFreeAsync, ptsz, (CUdeviceptr dptr, CUstream hStream), (dptr, hStream))
SIM_FN(cuMemGetAllocationGranularity, 10020, cuMemGetAllocationGranularity,
       (size_t* granularity, const CUmemAllocationProp* prop, CUmemAllocationGranularity_flags option),
       (granularity, prop, option))
SIM_FN(cuMemCreate, 10020, cuMemCreate,
       (CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop, unsigned long long flags),
       (handle, size, prop, flags))
SIM_FN(cuMemRelease, 10020, cuMemRelease, (CUmemGenericAllocationHandle handle), (handle))
SIM_FN(cuMemAddressReserve, 10020, cuMemAddressReserve,
       (CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags),
       (ptr, size, alignment, addr, flags))
SIM_FN(cuMemAddressFree, 10020, cuMemAddressFree, (CUdeviceptr ptr, size_t size), (ptr, size))
SIM_FN(cuMemMap, 10020, cuMemMap,
       (CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags),
       (ptr, size, offset, handle, flags))
SIM_FN(cuMemSetAccess, 10020, cuMemSetAccess,
       (CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count), (ptr, size, desc, count))
SIM_FN(cuMemUnmap, 10020, cuMemUnmap, (CUdeviceptr ptr, size_t size), (ptr, size))
SIM_FN(cuArrayCreate, 3020, cuArrayCreate_v2, (CUarray* pHandle, const CUDA_ARRAY_DESCRIPTOR* pAllocateArray),
       (pHandle, pAllocateArray))
SIM_FN(cuArray3DCreate, 3020, cuArray3DCreate_v2, (CUarray* pHandle, const CUDA_ARRAY3D_DESCRIPTOR* pAllocateArray),
       (pHandle, pAllocateArray))
SIM_FN(cuArrayDestroy, 2000, cuArrayDestroy, (CUarray hArray), (hArray))
SIM_FN(cuTexObjectCreate, 5000, cuTexObjectCreate,
       (CUtexObject* pTexObject, const CUDA_RESOURCE_DESC* pResDesc, const CUDA_TEXTURE_DESC* pTexDesc,
        const CUDA_RESOURCE_VIEW_DESC* pResViewDesc),
       (pTexObject, pResDesc, pTexDesc, pResViewDesc))
SIM_FN(cuTexObjectDestroy, 5000, cuTexObjectDestroy, (CUtexObject texObject), (texObject))
SIM_FN(cuSurfObjectCreate, 5000, cuSurfObjectCreate, (CUsurfObject* pSurfObject, const CUDA_RESOURCE_DESC* pResDesc),
       (pSurfObject, pResDesc))
SIM_FN(cuSurfObjectDestroy, 5000, cuSurfObjectDestroy, (CUsurfObject surfObject), (surfObject))
SIM_FN_PT(cuMemAllocFromPoolAsync, 11020, cuMemAllocFromPoolAsync, ptsz,
          (CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream), (dptr, bytesize, pool, hStream))
SIM_FN(cuDeviceGetDefaultMemPool, 11020, cuDeviceGetDefaultMemPool, (CUmemoryPool* pool_out, CUdevice dev),
       (pool_out, dev))
SIM_FN(cuMemPoolCreate, 11020, cuMemPoolCreate, (CUmemoryPool* pool, const CUmemPoolProps* poolProps),
       (pool, poolProps))
SIM_FN(cuMemPoolDestroy, 11020, cuMemPoolDestroy, (CUmemoryPool pool), (pool))
SIM_FN(cuMemPoolSetAttribute, 11020, cuMemPoolSetAttribute, (CUmemoryPool pool, CUmemPool_attribute attr, void* value),
       (pool, attr, value))
SIM_FN(cuMemPoolGetAttribute, 11020, cuMemPoolGetAttribute, (CUmemoryPool pool, CUmemPool_attribute attr, void* value),
       (pool, attr, value))
SIM_FN(cuMemPoolTrimTo, 11020, cuMemPoolTrimTo, (CUmemoryPool pool, size_t minBytesToKeep), (pool, minBytesToKeep))
SIM_FN(cuMemGetInfo, 3020, cuMemGetInfo_v2, (size_t* free, size_t* total), (free, total))
SIM_FN(cuMemHostRegister, 6050, cuMemHostRegister_v2, (void* p, size_t bytesize, unsigned int Flags),
       (p, bytesize, Flags))
SIM_FN(cuMemHostUnregister, 4000, cuMemHostUnregister, (void* p), (p))
SIM_FN(cuMemGetAddressRange, 3020, cuMemGetAddressRange_v2, (CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr),
       (pbase, psize, dptr))
SIM_FN(cuMemHostGetDevicePointer, 3020, cuMemHostGetDevicePointer_v2,
       (CUdeviceptr* pdptr, void* p, unsigned int Flags), (pdptr, p, Flags))
SIM_FN_PT(cuMemPrefetchAsync, 12020, cuMemPrefetchAsync_v2, ptsz,
          (CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream),
          (devPtr, count, location, flags, hStream))
SIM_FN_PT(cuStreamAttachMemAsync, 6000, cuStreamAttachMemAsync, ptsz,
          (CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags), (hStream, dptr, length, flags))
SIM_FN(cuPointerGetAttribute, 4000, cuPointerGetAttribute,
       (void* data, CUpointer_attribute attribute, CUdeviceptr ptr), (data, attribute, ptr))
SIM_FN(cuPointerGetAttributes, 7000, cuPointerGetAttributes,
       (unsigned int numAttributes, CUpointer_attribute* attributes, void** data, CUdeviceptr ptr),
       (numAttributes, attributes, data, ptr))

// ---- copies
SIM_FN_PT(cuMemcpy, 4000, cuMemcpy, ptds, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount), (dst, src, ByteCount))
SIM_FN_PT(cuMemcpyAsync, 4000, cuMemcpyAsync, ptsz,
          (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream), (dst, src, ByteCount, hStream))
SIM_FN_PT(cuMemcpyHtoD, 3020, cuMemcpyHtoD_v2, ptds, (CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount),
          (dstDevice, srcHost, ByteCount))
SIM_FN_PT(cuMemcpyDtoH, 3020, cuMemcpyDtoH_v2, ptds, (void* dstHost, CUdeviceptr srcDevice, size_t ByteCount),
          (dstHost, srcDevice, ByteCount))
SIM_FN_PT(cuMemcpyDtoD, 3020, cuMemcpyDtoD_v2, ptds,
          (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount), (dstDevice, srcDevice, ByteCount))
SIM_FN_PT(cuMemcpyHtoDAsync, 3020, cuMemcpyHtoDAsync_v2, ptsz,
          (CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream),
          (dstDevice, srcHost, ByteCount, hStream))
SIM_FN_PT(cuMemcpyDtoHAsync, 3020, cuMemcpyDtoHAsync_v2, ptsz,
          (void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream),
          (dstHost, srcDevice, ByteCount, hStream))
SIM_FN_PT(cuMemcpyDtoDAsync, 3020, cuMemcpyDtoDAsync_v2, ptsz,
          (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream),
          (dstDevice, srcDevice, ByteCount, hStream))
SIM_FN_PT(cuMemcpy2D, 3020, cuMemcpy2D_v2, ptds, (const CUDA_MEMCPY2D* pCopy), (pCopy))
SIM_FN_PT(cuMemcpy2DUnaligned, 3020, cuMemcpy2DUnaligned_v2, ptds, (const CUDA_MEMCPY2D* pCopy), (pCopy))
SIM_FN_PT(cuMemcpy2DAsync, 3020, cuMemcpy2DAsync_v2, ptsz, (const CUDA_MEMCPY2D* pCopy, CUstream hStream),
          (pCopy, hStream))

SIM_FN_PT(cuMemcpyPeer, 4000, cuMemcpyPeer, ptds,
          (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount),
          (dstDevice, dstContext, srcDevice, srcContext, ByteCount))
SIM_FN_PT(cuMemcpyPeerAsync, 4000, cuMemcpyPeerAsync, ptsz,
          (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount,
           CUstream hStream),
          (dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream))

// ---- memsets
SIM_FN_PT(cuMemsetD8, 3020, cuMemsetD8_v2, ptds, (CUdeviceptr dstDevice, unsigned char uc, size_t N),
          (dstDevice, uc, N))
SIM_FN_PT(cuMemsetD16, 3020, cuMemsetD16_v2, ptds, (CUdeviceptr dstDevice, unsigned short us, size_t N),
          (dstDevice, us, N))
SIM_FN_PT(cuMemsetD32, 3020, cuMemsetD32_v2, ptds, (CUdeviceptr dstDevice, unsigned int ui, size_t N),
          (dstDevice, ui, N))
SIM_FN_PT(cuMemsetD8Async, 3020, cuMemsetD8Async, ptsz,
          (CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream), (dstDevice, uc, N, hStream))
SIM_FN_PT(cuMemsetD16Async, 3020, cuMemsetD16Async, ptsz,
          (CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream), (dstDevice, us, N, hStream))
SIM_FN_PT(cuMemsetD32Async, 3020, cuMemsetD32Async, ptsz,
          (CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream), (dstDevice, ui, N, hStream))
SIM_FN_PT(cuMemsetD2D8, 3020, cuMemsetD2D8_v2, ptds,
          (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height),
          (dstDevice, dstPitch, uc, Width, Height))
SIM_FN_PT(cuMemsetD2D8Async, 3020, cuMemsetD2D8Async, ptsz,
          (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream),
          (dstDevice, dstPitch, uc, Width, Height, hStream))

// ---- streams
SIM_FN(cuStreamCreate, 2000, cuStreamCreate, (CUstream* phStream, unsigned int Flags), (phStream, Flags))
SIM_FN(cuStreamCreateWithPriority, 5050, cuStreamCreateWithPriority,
       (CUstream* phStream, unsigned int flags, int priority), (phStream, flags, priority))
SIM_FN(cuStreamDestroy, 4000, cuStreamDestroy_v2, (CUstream hStream), (hStream))
SIM_FN_PT(cuStreamSynchronize, 2000, cuStreamSynchronize, ptsz, (CUstream hStream), (hStream))
SIM_FN_PT(cuStreamQuery, 2000, cuStreamQuery, ptsz, (CUstream hStream), (hStream))
SIM_FN_PT(cuStreamWaitEvent, 3020, cuStreamWaitEvent, ptsz, (CUstream hStream, CUevent hEvent, unsigned int Flags),
          (hStream, hEvent, Flags))
SIM_FN_PT(cuStreamGetFlags, 5050, cuStreamGetFlags, ptsz, (CUstream hStream, unsigned int* flags), (hStream, flags))
SIM_FN_PT(cuStreamGetPriority, 5050, cuStreamGetPriority, ptsz, (CUstream hStream, int* priority),
          (hStream, priority))
SIM_FN_PT(cuStreamGetId, 12000, cuStreamGetId, ptsz, (CUstream hStream, unsigned long long* streamId),
          (hStream, streamId))
SIM_FN_PT(cuStreamBeginCapture, 10010, cuStreamBeginCapture_v2, ptsz, (CUstream hStream, CUstreamCaptureMode mode),
          (hStream, mode))
SIM_FN_PT(cuStreamEndCapture, 10000, cuStreamEndCapture, ptsz, (CUstream hStream, CUgraph* phGraph),
          (hStream, phGraph))
SIM_FN_PT(cuStreamIsCapturing, 10000, cuStreamIsCapturing, ptsz,
          (CUstream hStream, CUstreamCaptureStatus* captureStatus), (hStream, captureStatus))

// ---- events
SIM_FN(cuEventCreate, 2000, cuEventCreate, (CUevent* phEvent, unsigned int Flags), (phEvent, Flags))
SIM_FN(cuEventDestroy, 4000, cuEventDestroy_v2, (CUevent hEvent), (hEvent))
SIM_FN_PT(cuEventRecord, 2000, cuEventRecord, ptsz, (CUevent hEvent, CUstream hStream), (hEvent, hStream))
SIM_FN_PT(cuEventRecordWithFlags, 11010, cuEventRecordWithFlags, ptsz,
          (CUevent hEvent, CUstream hStream, unsigned int flags), (hEvent, hStream, flags))
SIM_FN(cuEventSynchronize, 2000, cuEventSynchronize, (CUevent hEvent), (hEvent))
SIM_FN(cuEventQuery, 2000, cuEventQuery, (CUevent hEvent), (hEvent))
SIM_FN(cuEventElapsedTime, 2000, cuEventElapsedTime, (float* pMilliseconds, CUevent hStart, CUevent hEnd),
       (pMilliseconds, hStart, hEnd))
SIM_FN(cuEventElapsedTime, 12080, cuEventElapsedTime_v2, (float* pMilliseconds, CUevent hStart, CUevent hEnd),
       (pMilliseconds, hStart, hEnd))

// ---- graphs
SIM_FN(cuGraphCreate, 10000, cuGraphCreate, (CUgraph* phGraph, unsigned int flags), (phGraph, flags))
SIM_FN(cuGraphAddKernelNode, 12000, cuGraphAddKernelNode_v2,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies,
        const CUDA_KERNEL_NODE_PARAMS* nodeParams),
       (phGraphNode, hGraph, dependencies, numDependencies, nodeParams))
SIM_FN(cuGraphAddMemcpyNode, 10000, cuGraphAddMemcpyNode,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies,
        const CUDA_MEMCPY3D* copyParams, CUcontext ctx),
       (phGraphNode, hGraph, dependencies, numDependencies, copyParams, ctx))
SIM_FN(cuGraphAddMemsetNode, 10000, cuGraphAddMemsetNode,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies,
        const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext ctx),
       (phGraphNode, hGraph, dependencies, numDependencies, memsetParams, ctx))
SIM_FN(cuGraphAddHostNode, 10000, cuGraphAddHostNode,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies,
        const CUDA_HOST_NODE_PARAMS* nodeParams),
       (phGraphNode, hGraph, dependencies, numDependencies, nodeParams))
SIM_FN(cuGraphAddMemAllocNode, 11040, cuGraphAddMemAllocNode,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies,
        CUDA_MEM_ALLOC_NODE_PARAMS* nodeParams),
       (phGraphNode, hGraph, dependencies, numDependencies, nodeParams))
SIM_FN(cuGraphAddMemFreeNode, 11040, cuGraphAddMemFreeNode,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies,
        CUdeviceptr dptr),
       (phGraphNode, hGraph, dependencies, numDependencies, dptr))
SIM_FN(cuGraphAddEmptyNode, 10000, cuGraphAddEmptyNode,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies),
       (phGraphNode, hGraph, dependencies, numDependencies))
SIM_FN(cuGraphAddEventRecordNode, 11010, cuGraphAddEventRecordNode,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies,
        CUevent event),
       (phGraphNode, hGraph, dependencies, numDependencies, event))
SIM_FN(cuGraphAddEventWaitNode, 11010, cuGraphAddEventWaitNode,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies,
        CUevent event),
       (phGraphNode, hGraph, dependencies, numDependencies, event))
SIM_FN(cuGraphAddChildGraphNode, 10000, cuGraphAddChildGraphNode,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies, size_t numDependencies,
        CUgraph childGraph),
       (phGraphNode, hGraph, dependencies, numDependencies, childGraph))
SIM_FN(cuGraphKernelNodeSetParams, 12000, cuGraphKernelNodeSetParams_v2,
       (CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS* nodeParams), (hNode, nodeParams))
SIM_FN(cuGraphKernelNodeGetParams, 12000, cuGraphKernelNodeGetParams_v2,
       (CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS* nodeParams), (hNode, nodeParams))
SIM_FN(cuGraphMemcpyNodeSetParams, 10000, cuGraphMemcpyNodeSetParams,
       (CUgraphNode hNode, const CUDA_MEMCPY3D* nodeParams), (hNode, nodeParams))
SIM_FN(cuGraphMemsetNodeSetParams, 10000, cuGraphMemsetNodeSetParams,
       (CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS* nodeParams), (hNode, nodeParams))
SIM_FN(cuGraphMemsetNodeGetParams, 10000, cuGraphMemsetNodeGetParams,
       (CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS* nodeParams), (hNode, nodeParams))
SIM_FN(cuGraphExecMemcpyNodeSetParams, 10020, cuGraphExecMemcpyNodeSetParams,
       (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMCPY3D* copyParams, CUcontext ctx),
       (hGraphExec, hNode, copyParams, ctx))
SIM_FN(cuGraphExecMemsetNodeSetParams, 10020, cuGraphExecMemsetNodeSetParams,
       (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext ctx),
       (hGraphExec, hNode, memsetParams, ctx))
SIM_FN(cuGraphNodeGetType, 10000, cuGraphNodeGetType, (CUgraphNode hNode, CUgraphNodeType* type), (hNode, type))
SIM_FN(cuGraphMemcpyNodeGetParams, 10000, cuGraphMemcpyNodeGetParams, (CUgraphNode hNode, CUDA_MEMCPY3D* nodeParams),
       (hNode, nodeParams))
SIM_FN(cuGraphHostNodeGetParams, 10000, cuGraphHostNodeGetParams,
       (CUgraphNode hNode, CUDA_HOST_NODE_PARAMS* nodeParams), (hNode, nodeParams))
SIM_FN(cuGraphHostNodeSetParams, 10000, cuGraphHostNodeSetParams,
       (CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS* nodeParams), (hNode, nodeParams))
SIM_FN(cuGraphExecHostNodeSetParams, 10020, cuGraphExecHostNodeSetParams,
       (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS* nodeParams),
       (hGraphExec, hNode, nodeParams))
SIM_FN(cuGraphEventRecordNodeGetEvent, 11010, cuGraphEventRecordNodeGetEvent, (CUgraphNode hNode, CUevent* event_out),
       (hNode, event_out))
SIM_FN(cuGraphEventRecordNodeSetEvent, 11010, cuGraphEventRecordNodeSetEvent, (CUgraphNode hNode, CUevent event),
       (hNode, event))
SIM_FN(cuGraphEventWaitNodeGetEvent, 11010, cuGraphEventWaitNodeGetEvent, (CUgraphNode hNode, CUevent* event_out),
       (hNode, event_out))
SIM_FN(cuGraphEventWaitNodeSetEvent, 11010, cuGraphEventWaitNodeSetEvent, (CUgraphNode hNode, CUevent event),
       (hNode, event))
SIM_FN(cuGraphExecEventRecordNodeSetEvent, 11010, cuGraphExecEventRecordNodeSetEvent,
       (CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event), (hGraphExec, hNode, event))
SIM_FN(cuGraphExecEventWaitNodeSetEvent, 11010, cuGraphExecEventWaitNodeSetEvent,
       (CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event), (hGraphExec, hNode, event))
SIM_FN(cuGraphDestroyNode, 10000, cuGraphDestroyNode, (CUgraphNode hNode), (hNode))
SIM_FN(cuGraphAddDependencies, 12030, cuGraphAddDependencies_v2,
       (CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to, const CUgraphEdgeData* edgeData,
        size_t numDependencies),
       (hGraph, from, to, edgeData, numDependencies))
SIM_FN(cuGraphRemoveDependencies, 12030, cuGraphRemoveDependencies_v2,
       (CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to, const CUgraphEdgeData* edgeData,
        size_t numDependencies),
       (hGraph, from, to, edgeData, numDependencies))
SIM_FN(cuGraphGetEdges, 12030, cuGraphGetEdges_v2,
       (CUgraph hGraph, CUgraphNode* from, CUgraphNode* to, CUgraphEdgeData* edgeData, size_t* numEdges),
       (hGraph, from, to, edgeData, numEdges))
SIM_FN(cuGraphAddNode, 12030, cuGraphAddNode_v2,
       (CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
        const CUgraphEdgeData* dependencyData, size_t numDependencies, CUgraphNodeParams* nodeParams),
       (phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams))
SIM_FN(cuGraphConditionalHandleCreate, 12030, cuGraphConditionalHandleCreate,
       (CUgraphConditionalHandle* pHandle_out, CUgraph hGraph, CUcontext ctx, unsigned int defaultLaunchValue,
        unsigned int flags),
       (pHandle_out, hGraph, ctx, defaultLaunchValue, flags))
SIM_FN(cuDeviceGetGraphMemAttribute, 11040, cuDeviceGetGraphMemAttribute,
       (CUdevice device, CUgraphMem_attribute attr, void* value), (device, attr, value))
SIM_FN(cuGraphClone, 10000, cuGraphClone, (CUgraph* phGraphClone, CUgraph originalGraph), (phGraphClone, originalGraph))
SIM_FN(cuGraphGetNodes, 10000, cuGraphGetNodes, (CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes),
       (hGraph, nodes, numNodes))
SIM_FN_PT(cuGraphUpload, 11010, cuGraphUpload, ptsz, (CUgraphExec hGraphExec, CUstream hStream), (hGraphExec, hStream))
SIM_FN(cuGraphExecUpdate, 12000, cuGraphExecUpdate_v2,
       (CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo* resultInfo),
       (hGraphExec, hGraph, resultInfo))
SIM_FN(cuGraphExecKernelNodeSetParams, 12000, cuGraphExecKernelNodeSetParams_v2,
       (CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS* nodeParams),
       (hGraphExec, hNode, nodeParams))
SIM_PROC_ALIAS(cuGraphInstantiate, 12000, cuGraphInstantiateWithFlags)
SIM_FN(cuGraphInstantiateWithFlags, 11040, cuGraphInstantiateWithFlags,
       (CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long flags), (phGraphExec, hGraph, flags))
SIM_FN_PT(cuGraphLaunch, 10000, cuGraphLaunch, ptsz, (CUgraphExec hGraphExec, CUstream hStream),
          (hGraphExec, hStream))
SIM_FN(cuGraphExecDestroy, 10000, cuGraphExecDestroy, (CUgraphExec hGraphExec), (hGraphExec))
SIM_FN(cuGraphDestroy, 10000, cuGraphDestroy, (CUgraph hGraph), (hGraph))

// ---- profiler control
SIM_FN_NOARGS(cuProfilerStart, 4000, cuProfilerStart)
SIM_FN_NOARGS(cuProfilerStop, 4000, cuProfilerStop)

#undef SIM_FN
#undef SIM_FN_PT
#undef SIM_FN_NOARGS
#undef SIM_LAUNCH_PT
#undef SIM_PROC_ALIAS
