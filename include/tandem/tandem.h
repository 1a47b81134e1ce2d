/* tandem: data-parallel training across compute devices of any vendor.
 * The umbrella header: include this one. */
#ifndef TANDEM_TANDEM_H
#define TANDEM_TANDEM_H

/* The one version of the project: CMake's project(VERSION) is read from these. */
#define TDM_VERSION_MAJOR 0
#define TDM_VERSION_MINOR 1
#define TDM_VERSION_PATCH 0

#include "tandem/status.h"
#include "tandem/context.h"
#include "tandem/device.h"
#include "tandem/buffer.h"
#include "tandem/dataset.h"
#include "tandem/tensor.h"
#include "tandem/ops.h"
#include "tandem/nn.h"
#include "tandem/values.h"
#include "tandem/strategy.h"
#include "tandem/variable.h"
#include "tandem/input.h"
#include "tandem/checkpoint.h"
#include "tandem/optimizer.h"
#include "tandem/train.h"
#include "tandem/model.h"
#include "tandem/model_text.h"
#include "tandem/step.h"
#include "tandem/monitor.h"
#include "tandem/training.h"
#include "tandem/summary.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version at run time, which may differ from the TDM_VERSION_ macros
 * a program was compiled with: "MAJOR.MINOR.PATCH" (a static string), and as one
 * number, MAJOR * 10000 + MINOR * 100 + PATCH. */
TDM_API const char *tdm_version(void);
TDM_API unsigned tdm_version_number(void);

#ifdef __cplusplus
}
#endif

#endif
