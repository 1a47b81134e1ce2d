/* Internal: shared libraries opened at run time, by the logical names of one table
 * (posix/dynlib.c holds this platform's file names; Win32's LoadLibraryExW and
 * GetProcAddress fit the same calls), so no caller spells a platform's file name. */
#ifndef TDM_PLATFORM_DYNLIB_H
#define TDM_PLATFORM_DYNLIB_H

#include <stddef.h>

typedef struct tdm_dynlib tdm_dynlib; /* the system's handle */

/* The file of the library called `name` in the table ("OpenCL", "Vulkan", "CLBlast",
 * "OpenBLAS", "oneDNN", "tandem_mpi"): here libOpenCL.so.1 and the like. A name the
 * table lacks is a file name or path already, returned as it is. */
const char *tdm_dynlib_file(const char *name);

/* Opens the library for the process; NULL when it cannot, with the system's reason in
 * why. */
tdm_dynlib *tdm_dynlib_open(const char *name, char *why, size_t why_size);

/* Opens it only if the process holds it already, else NULL. */
tdm_dynlib *tdm_dynlib_open_loaded(const char *name);

/* Opens a copy of its own, with the libraries it needs, beside any the process holds
 * already (glibc's dlmopen into a new namespace): a library that chose its code when
 * the program loaded it chooses again. NULL where the system cannot, with why. */
tdm_dynlib *tdm_dynlib_open_private(const char *name, char *why, size_t why_size);

/* The path the system loaded it from, or its file name where the system does not say. */
void tdm_dynlib_path(tdm_dynlib *lib, const char *name, char *path, size_t size);

/* The address of the named symbol; NULL when the library lacks it. */
void *tdm_dynlib_symbol(tdm_dynlib *lib, const char *symbol);

/* Drops this reference; the library unloads with its last. */
void tdm_dynlib_close(tdm_dynlib *lib);

/* The path of the library or program whose code holds address; 0 when the system does
 * not say. */
int tdm_dynlib_file_of(const void *address, char *path, size_t size);

/* Sanitizer builds (TDM_KEEP_DRIVERS_LOADED): the libraries loaded since a count taken
 * before some work stay loaded until the process exits. A driver that keeps an
 * allocation in a global across its unloading (lavapipe of Debian 12's Mesa
 * 22.3.6-1+deb12u2) is otherwise reported by LeakSanitizer at exit as a leak of an
 * unnamed module, which no suppression can name; loaded, the allocation stays
 * reachable. Other builds: 0 and nothing. */
size_t tdm_dynlib_loaded_count(void);
void tdm_dynlib_keep_loaded_since(size_t count);

#endif
