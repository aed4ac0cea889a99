// Every traced runtime entry point simcuda implements, one row each, included
// X-macro style by rt_entry_points.cpp (the exports) and runtime_impl.h (the
// declarations of their bodies, simcuda_rt::impl::<name>). The few untraced or
// special calls (cudaGetLastError, cudaGetErrorString, __cudaGetKernel, the
// registration hooks, __cudaLaunchKernel) are written out where they live.
//
// Rows (`ver`: CUPTI's callback-id suffix, cudaMalloc + v3020 ->
// CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020 and cudaMalloc_v3020_params):
//   SIM_RT(name, ver, params, args)
//   SIM_RT_PT(name, ver, suffix, pt_ver, params, args)   also name_suffix, the
//       per-thread-default-stream twin (its own cbid suffix pt_ver); the body
//       gets `bool per_thread` first
//   SIM_RT_NOARGS(name, ver)
//   SIM_RT_LAUNCH_PT(name, ver, suffix, pt_ver, params, args, symbol)  as
//       SIM_RT_PT; `symbol` (an expression of the args) is CUPTI's symbolName
// The includer defines all four; they are undefined at the end.

// ---- devices, versions
SIM_RT(cudaDriverGetVersion, v3020, (int* driverVersion), (driverVersion))
SIM_RT(cudaRuntimeGetVersion, v3020, (int* runtimeVersion), (runtimeVersion))
SIM_RT(cudaGetDeviceCount, v3020, (int* count), (count))
SIM_RT(cudaGetDevice, v3020, (int* device), (device))
SIM_RT(cudaSetDevice, v3020, (int device), (device))
SIM_RT(cudaInitDevice, v12000, (int device, unsigned int deviceFlags, unsigned int flags), (device, deviceFlags, flags))
SIM_RT(cudaSetDeviceFlags, v3020, (unsigned int flags), (flags))
SIM_RT_NOARGS(cudaDeviceSynchronize, v3020)
SIM_RT_NOARGS(cudaDeviceReset, v3020)
SIM_RT(cudaDeviceGetAttribute, v5000, (int* value, enum cudaDeviceAttr attr, int device), (value, attr, device))
SIM_RT(cudaDeviceGetStreamPriorityRange, v5050, (int* leastPriority, int* greatestPriority),
       (leastPriority, greatestPriority))
SIM_RT(cudaGetDeviceProperties, v12000, (struct cudaDeviceProp* prop, int device), (prop, device))
SIM_RT_NOARGS(cudaProfilerStart, v4000)
SIM_RT_NOARGS(cudaProfilerStop, v4000)

// ---- memory
SIM_RT(cudaMalloc, v3020, (void** devPtr, size_t size), (devPtr, size))
SIM_RT(cudaMallocPitch, v3020, (void** devPtr, size_t* pitch, size_t width, size_t height),
       (devPtr, pitch, width, height))
SIM_RT(cudaMallocManaged, v6000, (void** devPtr, size_t size, unsigned int flags), (devPtr, size, flags))
SIM_RT(cudaFree, v3020, (void* devPtr), (devPtr))
SIM_RT(cudaMallocHost, v3020, (void** ptr, size_t size), (ptr, size))
SIM_RT(cudaHostAlloc, v3020, (void** pHost, size_t size, unsigned int flags), (pHost, size, flags))
SIM_RT(cudaFreeHost, v3020, (void* ptr), (ptr))
SIM_RT(cudaHostRegister, v4000, (void* ptr, size_t size, unsigned int flags), (ptr, size, flags))
SIM_RT(cudaHostUnregister, v4000, (void* ptr), (ptr))
SIM_RT_PT(cudaMallocAsync, v11020, ptsz, v11020, (void** devPtr, size_t size, cudaStream_t hStream),
          (devPtr, size, hStream))
SIM_RT_PT(cudaFreeAsync, v11020, ptsz, v11020, (void* devPtr, cudaStream_t hStream), (devPtr, hStream))
SIM_RT_PT(cudaMallocFromPoolAsync, v11020, ptsz, v11020,
          (void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream), (ptr, size, memPool, stream))
SIM_RT(cudaDeviceGetDefaultMemPool, v11020, (cudaMemPool_t* memPool, int device), (memPool, device))
SIM_RT(cudaMemPoolCreate, v11020, (cudaMemPool_t* memPool, const struct cudaMemPoolProps* poolProps),
       (memPool, poolProps))
SIM_RT(cudaMemPoolDestroy, v11020, (cudaMemPool_t memPool), (memPool))
SIM_RT(cudaMemPoolSetAttribute, v11020, (cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value),
       (memPool, attr, value))
SIM_RT(cudaMemPoolGetAttribute, v11020, (cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value),
       (memPool, attr, value))
SIM_RT(cudaMemPoolTrimTo, v11020, (cudaMemPool_t memPool, size_t minBytesToKeep), (memPool, minBytesToKeep))
SIM_RT(cudaMallocArray, v3020,
       (cudaArray_t* array, const struct cudaChannelFormatDesc* desc, size_t width, size_t height, unsigned int flags),
       (array, desc, width, height, flags))
SIM_RT(cudaMalloc3DArray, v3020,
       (cudaArray_t* array, const struct cudaChannelFormatDesc* desc, struct cudaExtent extent, unsigned int flags),
       (array, desc, extent, flags))
SIM_RT(cudaFreeArray, v3020, (cudaArray_t array), (array))
SIM_RT_PT(cudaMemcpy2DToArray, v3020, ptds, v7000,
          (cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch, size_t width, size_t height,
           enum cudaMemcpyKind kind),
          (dst, wOffset, hOffset, src, spitch, width, height, kind))
SIM_RT_PT(cudaMemcpy2DFromArray, v3020, ptds, v7000,
          (void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width, size_t height,
           enum cudaMemcpyKind kind),
          (dst, dpitch, src, wOffset, hOffset, width, height, kind))
SIM_RT(cudaCreateTextureObject, v5000,
       (cudaTextureObject_t* pTexObject, const struct cudaResourceDesc* pResDesc, const struct cudaTextureDesc* pTexDesc,
        const struct cudaResourceViewDesc* pResViewDesc),
       (pTexObject, pResDesc, pTexDesc, pResViewDesc))
SIM_RT(cudaDestroyTextureObject, v5000, (cudaTextureObject_t texObject), (texObject))
SIM_RT(cudaCreateSurfaceObject, v5000, (cudaSurfaceObject_t* pSurfObject, const struct cudaResourceDesc* pResDesc),
       (pSurfObject, pResDesc))
SIM_RT(cudaDestroySurfaceObject, v5000, (cudaSurfaceObject_t surfObject), (surfObject))
SIM_RT(cudaMemGetInfo, v3020, (size_t* free, size_t* total), (free, total))
SIM_RT(cudaPointerGetAttributes, v4000, (struct cudaPointerAttributes* attributes, const void* ptr),
       (attributes, ptr))

// ---- copies and memsets
SIM_RT_PT(cudaMemcpy, v3020, ptds, v7000, (void* dst, const void* src, size_t count, enum cudaMemcpyKind kind),
          (dst, src, count, kind))
SIM_RT_PT(cudaMemcpyAsync, v3020, ptsz, v7000,
          (void* dst, const void* src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream),
          (dst, src, count, kind, stream))
SIM_RT_PT(cudaMemcpy2D, v3020, ptds, v7000,
          (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
           enum cudaMemcpyKind kind),
          (dst, dpitch, src, spitch, width, height, kind))
SIM_RT_PT(cudaMemcpy2DAsync, v3020, ptsz, v7000,
          (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
           enum cudaMemcpyKind kind, cudaStream_t stream),
          (dst, dpitch, src, spitch, width, height, kind, stream))
SIM_RT_PT(cudaMemset, v3020, ptds, v7000, (void* devPtr, int value, size_t count), (devPtr, value, count))
SIM_RT_PT(cudaMemsetAsync, v3020, ptsz, v7000, (void* devPtr, int value, size_t count, cudaStream_t stream),
          (devPtr, value, count, stream))
SIM_RT_PT(cudaMemset2D, v3020, ptds, v7000, (void* devPtr, size_t pitch, int value, size_t width, size_t height),
          (devPtr, pitch, value, width, height))
SIM_RT_PT(cudaMemset2DAsync, v3020, ptsz, v7000,
          (void* devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream),
          (devPtr, pitch, value, width, height, stream))

// ---- streams
SIM_RT(cudaStreamCreate, v3020, (cudaStream_t* pStream), (pStream))
SIM_RT(cudaStreamCreateWithFlags, v5000, (cudaStream_t* pStream, unsigned int flags), (pStream, flags))
SIM_RT(cudaStreamCreateWithPriority, v5050, (cudaStream_t* pStream, unsigned int flags, int priority),
       (pStream, flags, priority))
SIM_RT(cudaStreamDestroy, v5050, (cudaStream_t stream), (stream))
SIM_RT_PT(cudaStreamSynchronize, v3020, ptsz, v7000, (cudaStream_t stream), (stream))
SIM_RT_PT(cudaStreamQuery, v3020, ptsz, v7000, (cudaStream_t stream), (stream))
SIM_RT_PT(cudaStreamWaitEvent, v3020, ptsz, v7000, (cudaStream_t stream, cudaEvent_t event, unsigned int flags),
          (stream, event, flags))
SIM_RT_PT(cudaStreamGetId, v12000, ptsz, v12000, (cudaStream_t hStream, unsigned long long* streamId),
          (hStream, streamId))
SIM_RT_PT(cudaStreamBeginCapture, v10000, ptsz, v10000, (cudaStream_t stream, enum cudaStreamCaptureMode mode),
          (stream, mode))
SIM_RT_PT(cudaStreamEndCapture, v10000, ptsz, v10000, (cudaStream_t stream, cudaGraph_t* pGraph), (stream, pGraph))
SIM_RT_PT(cudaStreamIsCapturing, v10000, ptsz, v10000,
          (cudaStream_t stream, enum cudaStreamCaptureStatus* pCaptureStatus), (stream, pCaptureStatus))

// ---- events
SIM_RT(cudaEventCreate, v3020, (cudaEvent_t* event), (event))
SIM_RT(cudaEventCreateWithFlags, v3020, (cudaEvent_t* event, unsigned int flags), (event, flags))
SIM_RT(cudaEventDestroy, v3020, (cudaEvent_t event), (event))
SIM_RT_PT(cudaEventRecord, v3020, ptsz, v7000, (cudaEvent_t event, cudaStream_t stream), (event, stream))
SIM_RT_PT(cudaEventRecordWithFlags, v11010, ptsz, v11010, (cudaEvent_t event, cudaStream_t stream, unsigned int flags),
          (event, stream, flags))
SIM_RT(cudaEventSynchronize, v3020, (cudaEvent_t event), (event))
SIM_RT(cudaEventQuery, v3020, (cudaEvent_t event), (event))
SIM_RT(cudaEventElapsedTime, v12080, (float* ms, cudaEvent_t start, cudaEvent_t end), (ms, start, end))

// ---- graphs
SIM_RT(cudaGraphInstantiate, v12000, (cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags),
       (pGraphExec, graph, flags))
SIM_RT(cudaGraphInstantiateWithFlags, v11040,
       (cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags), (pGraphExec, graph, flags))
SIM_RT_PT(cudaGraphLaunch, v10000, ptsz, v10000, (cudaGraphExec_t graphExec, cudaStream_t stream),
          (graphExec, stream))
SIM_RT(cudaGraphCreate, v10000, (cudaGraph_t* pGraph, unsigned int flags), (pGraph, flags))
SIM_RT(cudaGraphAddKernelNode, v10000,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies,
        const struct cudaKernelNodeParams* pNodeParams),
       (pGraphNode, graph, pDependencies, numDependencies, pNodeParams))
SIM_RT(cudaGraphAddMemcpyNode1D, v11010,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies,
        void* dst, const void* src, size_t count, enum cudaMemcpyKind kind),
       (pGraphNode, graph, pDependencies, numDependencies, dst, src, count, kind))
SIM_RT(cudaGraphAddMemsetNode, v10000,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies,
        const struct cudaMemsetParams* pMemsetParams),
       (pGraphNode, graph, pDependencies, numDependencies, pMemsetParams))
SIM_RT(cudaGraphAddHostNode, v10000,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies,
        const struct cudaHostNodeParams* pNodeParams),
       (pGraphNode, graph, pDependencies, numDependencies, pNodeParams))
SIM_RT(cudaGraphAddMemAllocNode, v11040,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies,
        struct cudaMemAllocNodeParams* nodeParams),
       (pGraphNode, graph, pDependencies, numDependencies, nodeParams))
SIM_RT(cudaGraphAddMemFreeNode, v11040,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies,
        void* dptr),
       (pGraphNode, graph, pDependencies, numDependencies, dptr))
SIM_RT(cudaGraphAddEmptyNode, v10000,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies),
       (pGraphNode, graph, pDependencies, numDependencies))
SIM_RT(cudaGraphAddEventRecordNode, v11010,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies,
        cudaEvent_t event),
       (pGraphNode, graph, pDependencies, numDependencies, event))
SIM_RT(cudaGraphAddEventWaitNode, v11010,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies,
        cudaEvent_t event),
       (pGraphNode, graph, pDependencies, numDependencies, event))
SIM_RT(cudaGraphAddMemcpyNode, v10000,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies,
        const struct cudaMemcpy3DParms* pCopyParams),
       (pGraphNode, graph, pDependencies, numDependencies, pCopyParams))
SIM_RT(cudaGraphAddChildGraphNode, v10000,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies, size_t numDependencies,
        cudaGraph_t childGraph),
       (pGraphNode, graph, pDependencies, numDependencies, childGraph))
SIM_RT(cudaGraphKernelNodeSetParams, v10000, (cudaGraphNode_t node, const struct cudaKernelNodeParams* pNodeParams),
       (node, pNodeParams))
SIM_RT(cudaGraphKernelNodeGetParams, v10000, (cudaGraphNode_t node, struct cudaKernelNodeParams* pNodeParams),
       (node, pNodeParams))
SIM_RT(cudaGraphMemcpyNodeSetParams, v10000, (cudaGraphNode_t node, const struct cudaMemcpy3DParms* pNodeParams),
       (node, pNodeParams))
SIM_RT(cudaGraphMemcpyNodeSetParams1D, v11010,
       (cudaGraphNode_t node, void* dst, const void* src, size_t count, enum cudaMemcpyKind kind),
       (node, dst, src, count, kind))
SIM_RT(cudaGraphMemsetNodeSetParams, v10000, (cudaGraphNode_t node, const struct cudaMemsetParams* pNodeParams),
       (node, pNodeParams))
SIM_RT(cudaGraphMemsetNodeGetParams, v10000, (cudaGraphNode_t node, struct cudaMemsetParams* pNodeParams),
       (node, pNodeParams))
SIM_RT(cudaGraphExecMemcpyNodeSetParams, v10020,
       (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaMemcpy3DParms* pNodeParams),
       (hGraphExec, node, pNodeParams))
SIM_RT(cudaGraphExecMemcpyNodeSetParams1D, v11010,
       (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void* dst, const void* src, size_t count,
        enum cudaMemcpyKind kind),
       (hGraphExec, node, dst, src, count, kind))
SIM_RT(cudaGraphExecMemsetNodeSetParams, v10020,
       (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaMemsetParams* pNodeParams),
       (hGraphExec, node, pNodeParams))
SIM_RT(cudaGraphNodeGetType, v10000, (cudaGraphNode_t node, enum cudaGraphNodeType* pType), (node, pType))
SIM_RT(cudaGraphMemcpyNodeGetParams, v10000, (cudaGraphNode_t node, struct cudaMemcpy3DParms* pNodeParams),
       (node, pNodeParams))
SIM_RT(cudaGraphHostNodeGetParams, v10000, (cudaGraphNode_t node, struct cudaHostNodeParams* pNodeParams),
       (node, pNodeParams))
SIM_RT(cudaGraphHostNodeSetParams, v10000, (cudaGraphNode_t node, const struct cudaHostNodeParams* pNodeParams),
       (node, pNodeParams))
SIM_RT(cudaGraphExecHostNodeSetParams, v10020,
       (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaHostNodeParams* pNodeParams),
       (hGraphExec, node, pNodeParams))
SIM_RT(cudaGraphEventRecordNodeGetEvent, v11010, (cudaGraphNode_t node, cudaEvent_t* event_out), (node, event_out))
SIM_RT(cudaGraphEventRecordNodeSetEvent, v11010, (cudaGraphNode_t node, cudaEvent_t event), (node, event))
SIM_RT(cudaGraphEventWaitNodeGetEvent, v11010, (cudaGraphNode_t node, cudaEvent_t* event_out), (node, event_out))
SIM_RT(cudaGraphEventWaitNodeSetEvent, v11010, (cudaGraphNode_t node, cudaEvent_t event), (node, event))
SIM_RT(cudaGraphExecEventRecordNodeSetEvent, v11010, (cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event),
       (hGraphExec, hNode, event))
SIM_RT(cudaGraphExecEventWaitNodeSetEvent, v11010, (cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event),
       (hGraphExec, hNode, event))
SIM_RT(cudaGraphDestroyNode, v10000, (cudaGraphNode_t node), (node))
SIM_RT(cudaGraphAddDependencies, v12030,
       (cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to, const cudaGraphEdgeData* edgeData,
        size_t numDependencies),
       (graph, from, to, edgeData, numDependencies))
SIM_RT(cudaGraphRemoveDependencies, v12030,
       (cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to, const cudaGraphEdgeData* edgeData,
        size_t numDependencies),
       (graph, from, to, edgeData, numDependencies))
SIM_RT(cudaGraphGetEdges, v12030,
       (cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to, cudaGraphEdgeData* edgeData, size_t* numEdges),
       (graph, from, to, edgeData, numEdges))
SIM_RT(cudaGraphAddNode, v12030,
       (cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
        const cudaGraphEdgeData* dependencyData, size_t numDependencies, struct cudaGraphNodeParams* nodeParams),
       (pGraphNode, graph, pDependencies, dependencyData, numDependencies, nodeParams))
SIM_RT(cudaGraphConditionalHandleCreate, v12030,
       (cudaGraphConditionalHandle* pHandle_out, cudaGraph_t graph, unsigned int defaultLaunchValue, unsigned int flags),
       (pHandle_out, graph, defaultLaunchValue, flags))
SIM_RT(cudaDeviceGetGraphMemAttribute, v11040, (int device, enum cudaGraphMemAttributeType attr, void* value),
       (device, attr, value))
SIM_RT(cudaGraphClone, v10000, (cudaGraph_t* pGraphClone, cudaGraph_t originalGraph), (pGraphClone, originalGraph))
SIM_RT(cudaGraphGetNodes, v10000, (cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes),
       (graph, nodes, numNodes))
SIM_RT_PT(cudaGraphUpload, v10000, ptsz, v10000, (cudaGraphExec_t graphExec, cudaStream_t stream), (graphExec, stream))
SIM_RT(cudaGraphExecUpdate, v10020,
       (cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphExecUpdateResultInfo* resultInfo),
       (hGraphExec, hGraph, resultInfo))
SIM_RT(cudaGraphExecKernelNodeSetParams, v10010,
       (cudaGraphExec_t hGraphExec, cudaGraphNode_t node, const struct cudaKernelNodeParams* pNodeParams),
       (hGraphExec, node, pNodeParams))
SIM_RT(cudaGraphExecDestroy, v10000, (cudaGraphExec_t graphExec), (graphExec))
SIM_RT(cudaGraphDestroy, v10000, (cudaGraph_t graph), (graph))

// ---- host functions in stream order
SIM_RT_PT(cudaLaunchHostFunc, v10000, ptsz, v10000, (cudaStream_t stream, cudaHostFn_t fn, void* userData),
          (stream, fn, userData))
SIM_RT_PT(cudaStreamAddCallback, v5000, ptsz, v7000,
          (cudaStream_t stream, cudaStreamCallback_t callback, void* userData, unsigned int flags),
          (stream, callback, userData, flags))

// ---- peers
SIM_RT(cudaDeviceGetP2PAttribute, v8000, (int* value, enum cudaDeviceP2PAttr attr, int srcDevice, int dstDevice),
       (value, attr, srcDevice, dstDevice))
SIM_RT(cudaDeviceCanAccessPeer, v4000, (int* canAccessPeer, int device, int peerDevice),
       (canAccessPeer, device, peerDevice))
SIM_RT(cudaDeviceEnablePeerAccess, v4000, (int peerDevice, unsigned int flags), (peerDevice, flags))
SIM_RT(cudaDeviceDisablePeerAccess, v4000, (int peerDevice), (peerDevice))
SIM_RT(cudaMemcpyPeer, v4000, (void* dst, int dstDevice, const void* src, int srcDevice, size_t count),
       (dst, dstDevice, src, srcDevice, count))
SIM_RT(cudaMemcpyPeerAsync, v4000,
       (void* dst, int dstDevice, const void* src, int srcDevice, size_t count, cudaStream_t stream),
       (dst, dstDevice, src, srcDevice, count, stream))

// ---- mapped and managed memory
SIM_RT(cudaHostGetDevicePointer, v3020, (void** pDevice, void* pHost, unsigned int flags), (pDevice, pHost, flags))
SIM_RT_PT(cudaMemPrefetchAsync, v12020, ptsz, v12020,
          (const void* devPtr, size_t count, struct cudaMemLocation location, unsigned int flags, cudaStream_t stream),
          (devPtr, count, location, flags, stream))
SIM_RT_PT(cudaStreamAttachMemAsync, v6000, ptsz, v7000,
          (cudaStream_t stream, void* devPtr, size_t length, unsigned int flags), (stream, devPtr, length, flags))

// ---- __device__ and __constant__ variables
SIM_RT_PT(cudaMemcpyToSymbol, v3020, ptds, v7000,
          (const void* symbol, const void* src, size_t count, size_t offset, enum cudaMemcpyKind kind),
          (symbol, src, count, offset, kind))
SIM_RT_PT(cudaMemcpyFromSymbol, v3020, ptds, v7000,
          (void* dst, const void* symbol, size_t count, size_t offset, enum cudaMemcpyKind kind),
          (dst, symbol, count, offset, kind))
SIM_RT(cudaGetSymbolAddress, v3020, (void** devPtr, const void* symbol), (devPtr, symbol))
SIM_RT(cudaGetSymbolSize, v3020, (size_t* size, const void* symbol), (size, symbol))

// ---- kernels' attributes and occupancy
SIM_RT(cudaFuncGetAttributes, v3020, (struct cudaFuncAttributes* attr, const void* func), (attr, func))
SIM_RT(cudaFuncSetAttribute, v9000, (const void* func, enum cudaFuncAttribute attr, int value), (func, attr, value))
SIM_RT(cudaFuncSetCacheConfig, v3020, (const void* func, enum cudaFuncCache cacheConfig), (func, cacheConfig))
SIM_RT(cudaDeviceSetLimit, v3020, (enum cudaLimit limit, size_t value), (limit, value))
SIM_RT(cudaDeviceGetLimit, v3020, (size_t* pValue, enum cudaLimit limit), (pValue, limit))
SIM_RT(cudaDeviceSetCacheConfig, v3020, (enum cudaFuncCache cacheConfig), (cacheConfig))
SIM_RT(cudaDeviceGetCacheConfig, v3020, (enum cudaFuncCache* pCacheConfig), (pCacheConfig))
SIM_RT(cudaOccupancyMaxActiveBlocksPerMultiprocessor, v6050,
       (int* numBlocks, const void* func, int blockSize, size_t dynamicSMemSize),
       (numBlocks, func, blockSize, dynamicSMemSize))
SIM_RT(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, v7000,
       (int* numBlocks, const void* func, int blockSize, size_t dynamicSMemSize, unsigned int flags),
       (numBlocks, func, blockSize, dynamicSMemSize, flags))

// ---- launches
// __cudaLaunchKernel(_ptsz), which <<<>>> calls, is written out in rt_launch.cpp: it
// is reported as cudaLaunchKernel(_ptsz).
SIM_RT_LAUNCH_PT(cudaLaunchKernel, v7000, ptsz, v7000,
                 (const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem, cudaStream_t stream),
                 (func, gridDim, blockDim, args, sharedMem, stream), stub_symbol(func))
SIM_RT_LAUNCH_PT(cudaLaunchCooperativeKernel, v9000, ptsz, v9000,
                 (const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem, cudaStream_t stream),
                 (func, gridDim, blockDim, args, sharedMem, stream), stub_symbol(func))
SIM_RT_LAUNCH_PT(cudaLaunchKernelExC, v11060, ptsz, v11060,
                 (const cudaLaunchConfig_t* config, const void* func, void** args), (config, func, args),
                 stub_symbol(func))

#undef SIM_RT
#undef SIM_RT_PT
#undef SIM_RT_NOARGS
#undef SIM_RT_LAUNCH_PT
