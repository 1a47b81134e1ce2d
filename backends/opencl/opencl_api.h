/* The OpenCL entry points the backend calls, loaded from libOpenCL.so.1 at run time
 * (opencl_api.c), so that tandem starts where no OpenCL is installed. Each name is a
 * macro for its pointer in a hidden table, so the call sites read as plain OpenCL.
 * A new call needs its name in both lists below. */
#ifndef TDM_OPENCL_API_H
#define TDM_OPENCL_API_H

/* OpenCL 1.2 entry points only, so that every ICD can run us. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "tandem/status.h"

#define TDM_OPENCL_FUNCTIONS(X)                                                                    \
    X(clBuildProgram)                                                                              \
    X(clCreateBuffer)                                                                              \
    X(clCreateCommandQueue)                                                                        \
    X(clCreateContext)                                                                             \
    X(clCreateKernel)                                                                              \
    X(clCreateProgramWithBinary)                                                                   \
    X(clCreateProgramWithSource)                                                                   \
    X(clEnqueueBarrierWithWaitList)                                                                \
    X(clEnqueueCopyBuffer)                                                                         \
    X(clEnqueueFillBuffer)                                                                         \
    X(clEnqueueMarkerWithWaitList)                                                                 \
    X(clEnqueueNativeKernel)                                                                       \
    X(clEnqueueNDRangeKernel)                                                                      \
    X(clEnqueueReadBuffer)                                                                         \
    X(clEnqueueWriteBuffer)                                                                        \
    X(clFinish)                                                                                    \
    X(clFlush)                                                                                     \
    X(clGetDeviceIDs)                                                                              \
    X(clGetContextInfo)                                                                            \
    X(clGetDeviceInfo)                                                                             \
    X(clGetEventInfo)                                                                              \
    X(clGetEventProfilingInfo)                                                                     \
    X(clGetKernelInfo)                                                                             \
    X(clGetKernelWorkGroupInfo)                                                                    \
    X(clGetPlatformIDs)                                                                            \
    X(clGetPlatformInfo)                                                                           \
    X(clGetProgramBuildInfo)                                                                       \
    X(clGetProgramInfo)                                                                            \
    X(clReleaseCommandQueue)                                                                       \
    X(clReleaseContext)                                                                            \
    X(clReleaseEvent)                                                                              \
    X(clReleaseKernel)                                                                             \
    X(clReleaseMemObject)                                                                          \
    X(clReleaseProgram)                                                                            \
    X(clRetainContext)                                                                             \
    X(clRetainMemObject)                                                                           \
    X(clSetKernelArg)                                                                              \
    X(clSetEventCallback)                                                                          \
    X(clSetMemObjectDestructorCallback)                                                            \
    X(clWaitForEvents)

typedef struct tdm_opencl_api {
#define TDM_OPENCL_POINTER(name) __typeof__(name) *name;
    TDM_OPENCL_FUNCTIONS(TDM_OPENCL_POINTER)
#undef TDM_OPENCL_POINTER
} tdm_opencl_api;

/* Filled once by tdm_opencl_load, read-only afterwards. */
extern tdm_opencl_api tdm_opencl_entry;

/* Loads libOpenCL.so.1 and every entry point, once per process (thread-safe).
 * TDM_ERR_NOT_FOUND, with the reason, when it cannot. *note: the file loaded from,
 * or the reason; it lives as long as the process. */
tdm_status tdm_opencl_load(const char **note);

#ifndef TDM_OPENCL_API_LOADER
#define clBuildProgram tdm_opencl_entry.clBuildProgram
#define clCreateBuffer tdm_opencl_entry.clCreateBuffer
#define clCreateCommandQueue tdm_opencl_entry.clCreateCommandQueue
#define clCreateContext tdm_opencl_entry.clCreateContext
#define clCreateKernel tdm_opencl_entry.clCreateKernel
#define clCreateProgramWithBinary tdm_opencl_entry.clCreateProgramWithBinary
#define clCreateProgramWithSource tdm_opencl_entry.clCreateProgramWithSource
#define clEnqueueBarrierWithWaitList tdm_opencl_entry.clEnqueueBarrierWithWaitList
#define clEnqueueCopyBuffer tdm_opencl_entry.clEnqueueCopyBuffer
#define clEnqueueFillBuffer tdm_opencl_entry.clEnqueueFillBuffer
#define clEnqueueMarkerWithWaitList tdm_opencl_entry.clEnqueueMarkerWithWaitList
#define clEnqueueNativeKernel tdm_opencl_entry.clEnqueueNativeKernel
#define clEnqueueNDRangeKernel tdm_opencl_entry.clEnqueueNDRangeKernel
#define clEnqueueReadBuffer tdm_opencl_entry.clEnqueueReadBuffer
#define clEnqueueWriteBuffer tdm_opencl_entry.clEnqueueWriteBuffer
#define clFinish tdm_opencl_entry.clFinish
#define clFlush tdm_opencl_entry.clFlush
#define clGetDeviceIDs tdm_opencl_entry.clGetDeviceIDs
#define clGetContextInfo tdm_opencl_entry.clGetContextInfo
#define clGetDeviceInfo tdm_opencl_entry.clGetDeviceInfo
#define clGetEventInfo tdm_opencl_entry.clGetEventInfo
#define clGetEventProfilingInfo tdm_opencl_entry.clGetEventProfilingInfo
#define clGetKernelInfo tdm_opencl_entry.clGetKernelInfo
#define clGetKernelWorkGroupInfo tdm_opencl_entry.clGetKernelWorkGroupInfo
#define clGetPlatformIDs tdm_opencl_entry.clGetPlatformIDs
#define clGetPlatformInfo tdm_opencl_entry.clGetPlatformInfo
#define clGetProgramBuildInfo tdm_opencl_entry.clGetProgramBuildInfo
#define clGetProgramInfo tdm_opencl_entry.clGetProgramInfo
#define clReleaseCommandQueue tdm_opencl_entry.clReleaseCommandQueue
#define clReleaseContext tdm_opencl_entry.clReleaseContext
#define clReleaseEvent tdm_opencl_entry.clReleaseEvent
#define clReleaseKernel tdm_opencl_entry.clReleaseKernel
#define clReleaseMemObject tdm_opencl_entry.clReleaseMemObject
#define clReleaseProgram tdm_opencl_entry.clReleaseProgram
#define clRetainContext tdm_opencl_entry.clRetainContext
#define clRetainMemObject tdm_opencl_entry.clRetainMemObject
#define clSetKernelArg tdm_opencl_entry.clSetKernelArg
#define clSetEventCallback tdm_opencl_entry.clSetEventCallback
#define clSetMemObjectDestructorCallback tdm_opencl_entry.clSetMemObjectDestructorCallback
#define clWaitForEvents tdm_opencl_entry.clWaitForEvents
#endif

#endif
