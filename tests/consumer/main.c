/* A program outside the tree that uses an installed tandem: tests/install_consumer.sh. */
#include <stdio.h>
#include <tandem/tandem.h>
int main(void)
{
    tdm_context *ctx;
    if (tdm_context_create(NULL, &ctx) != TDM_OK) {
        fprintf(stderr, "%s\n", tdm_last_error());
        return 1;
    }
    tdm_device *dev;
    tdm_context_device(ctx, 0, &dev);
    tdm_buffer *b;
    float x[4] = {1, 2, 3, 4}, y[4] = {0};
    if (tdm_buffer_alloc(dev, sizeof x, &b) != TDM_OK) return 1;
    tdm_buffer_write(b, 0, x, sizeof x);
    tdm_buffer_read(b, 0, y, sizeof y);
    printf("%zu devices, read back %g\n", tdm_context_device_count(ctx), y[3]);
    tdm_context_destroy(ctx);
    return y[3] == 4 ? 0 : 1;
}
