/* The library's version at run time, from the public header's macros. */
#include "tandem/tandem.h"

#define TDM_STR_(x) #x
#define TDM_STR(x) TDM_STR_(x)

const char *tdm_version(void)
{
    return TDM_STR(TDM_VERSION_MAJOR) "." TDM_STR(TDM_VERSION_MINOR) "." TDM_STR(TDM_VERSION_PATCH);
}

unsigned tdm_version_number(void)
{
    return TDM_VERSION_MAJOR * 10000u + TDM_VERSION_MINOR * 100u + TDM_VERSION_PATCH;
}
