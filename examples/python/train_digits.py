"""A first model with tandem's Python package: the bundled digits, a mirrored strategy
over the default devices, ten epochs, then evaluation and a saved model that
`tandem predict --model digits.safetensors` reads too. Exits 0 when the test accuracy
passes 90 %.

    python3 examples/python/train_digits.py [MODEL_FILE]
"""
import sys

import numpy as np

import tandem

x, y = tandem.load_digits()  # 1797 8x8 images, pixels 0-16
x = x / np.float32(16)
order = np.random.default_rng(0).permutation(len(y))
train, test = order[:1437], order[1437:]  # 80 % to train on, 20 % to test

strategy = tandem.MirroredStrategy()  # the default devices, one replica each
print("replicas on", ", ".join(strategy.devices))
model = tandem.Sequential("128,64", input_shape=(64,), classes=10)
model.compile(optimizer="adam", lr=1e-3)
history = model.fit(x[train], y[train], epochs=10, batch_size=64, strategy=strategy, verbose=1)
loss, accuracy = model.evaluate(x[test], y[test])
print(f"test: loss {loss:.4f}, accuracy {accuracy:.2%}")
model.save(sys.argv[1] if len(sys.argv) > 1 else "digits.safetensors")
sys.exit(0 if accuracy > 0.9 else 1)
