"""A graph of layers with tandem's Python package, Keras' functional way: the 8x8
digits through a 3x3 convolution beside a 1x1 one, joined, a second convolution with
a shortcut around it, each channel's mean, beside a dense view of the pixels; the
two joined before the output layer (examples/models/digits_two_branch.txt, which
`tandem train --model-file` reads, is the same model). Exits 0 when the test
accuracy passes 90 %.

    python3 examples/python/two_branch_digits.py [MODEL_FILE]
"""
import sys

import numpy as np

import tandem
from tandem.layers import Add, Concatenate, Conv2D, Dense, GlobalAveragePooling2D

x_all, y_all = tandem.load_digits()
images = (x_all / np.float32(16)).reshape(-1, 8, 8, 1)
order = np.random.default_rng(0).permutation(len(y_all))
train, test = order[:1437], order[1437:]  # 80 % to train on, 20 % to test

inputs = tandem.Input(shape=(8, 8, 1))
a = Conv2D(16, 3, padding="same", activation="relu")(inputs)
b = Conv2D(8, 1, padding="same", activation="relu")(inputs)
c = Concatenate()([a, b])
d = Conv2D(16, 3, padding="same", activation="relu")(c)
e = Add()([d, a])
f = GlobalAveragePooling2D()(e)
g = Dense(32, activation="relu")(inputs)
outputs = Dense(10, activation="softmax")(Concatenate()([f, g]))
model = tandem.Model(inputs, outputs)
print("the graph, as the library reads it:")
print(model.spec)

strategy = tandem.MirroredStrategy()
model.compile(optimizer="adam", lr=3e-3)
model.fit(images[train], y_all[train], epochs=10, batch_size=64, strategy=strategy, verbose=0)
loss, accuracy = model.evaluate(images[test], y_all[test])
print(f"test: loss {loss:.4f}, accuracy {accuracy:.2%}")
model.save(sys.argv[1] if len(sys.argv) > 1 else "two_branch.safetensors")
sys.exit(0 if accuracy > 0.9 else 1)
