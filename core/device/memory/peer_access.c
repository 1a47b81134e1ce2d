/* Peer access: a device always reaches its own buffers; two devices of one backend
 * reach each other's as their backend says. The GPU-shape test mode's decorated
 * tables keep one table per backend, so the comparison of ops still finds them. */
#include "device/memory/peer_access.h"

int tdm_device_copies_directly(const tdm_device *dst, const tdm_device *src)
{
    return dst == src || (dst->ops == src->ops && dst->ops->can_copy &&
                          dst->ops->can_copy(dst, dst->impl, src, src->impl));
}

int tdm_device_shares_memory(const tdm_device *a, const tdm_device *b)
{
    return a == b || (a->ops == b->ops && a->ops->shares_memory &&
                      a->ops->shares_memory(a, a->impl, b, b->impl));
}
