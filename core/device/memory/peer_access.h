/* Internal: what two devices may do with each other's buffers (backend.h's
 * can_copy and shares_memory, asked in one place). */
#ifndef TDM_PEER_ACCESS_H
#define TDM_PEER_ACCESS_H

#include "device/device_impl.h"

/* Whether copy moves bytes from src's buffers to dst's directly (else the core
 * stages them through the host). */
int tdm_device_copies_directly(const tdm_device *dst, const tdm_device *src);

/* Whether kernels of either device may read and write the other's buffers in
 * place: coherently shared memory, never two separate cards. */
int tdm_device_shares_memory(const tdm_device *a, const tdm_device *b);

#endif
