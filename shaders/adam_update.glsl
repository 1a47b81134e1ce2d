// The update adam and adamw share (TensorFlow's ApplyAdam: eps outside the square
// root, after bias correction):
//   lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
//   w -= lr_t * m / (sqrt(v) + eps)
// Buffers: w, g, m, v at bindings 0..3; floats lr, beta1, beta2, eps, beta1_power,
// beta2_power, then (adamw) weight_decay. TDM_ADAM_DECAY(w) is what the old w loses
// before the Adam step.
#ifndef TDM_ADAM_UPDATE_GLSL
#define TDM_ADAM_UPDATE_GLSL

layout(local_size_x = 64) in;
TDM_BUFFER(0, , float, w);
TDM_BUFFER(1, readonly, float, g);
TDM_BUFFER(2, , float, m);
TDM_BUFFER(3, , float, v);

void main()
{
    uint n = args.u[0];
    float lr = args.f[0], beta1 = args.f[1], beta2 = args.f[2], eps = args.f[3];
    float lr_t = lr * sqrt(1.0 - args.f[5]) / (1.0 - args.f[4]);
    for (uint i = gl_GlobalInvocationID.x; i < n; i += TDM_STRIDE) {
        float gi = g[args.off[1] + i];
        float mi = beta1 * m[args.off[2] + i] + (1.0 - beta1) * gi;
        float vi = beta2 * v[args.off[3] + i] + (1.0 - beta2) * gi * gi;
        m[args.off[2] + i] = mi;
        v[args.off[3] + i] = vi;
        float wi = w[args.off[0] + i];
        wi -= TDM_ADAM_DECAY(wi);
        w[args.off[0] + i] = wi - lr_t * mi / (sqrt(vi) + eps);
    }
}

#endif
