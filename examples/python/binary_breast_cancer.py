"""A binary classifier with tandem's Python package: the breast cancer data in the
project's data/ (569 tumours, 30 measurements, malignant 0 or benign 1), a sigmoid
output under the binary cross-entropy as Keras writes it, a mirrored strategy over
the default devices, then the test split's accuracy and probabilities. Exits 0 when
the accuracy passes 90 %.

    python3 examples/python/binary_breast_cancer.py [MODEL_FILE]
"""
import gzip
import sys
from pathlib import Path

import numpy as np

import tandem
from tandem.layers import Dense

DATA = Path(__file__).resolve().parents[2] / "data" / "breast_cancer.csv.gz"
# scikit-learn's export: a count line, then 30 features and the 0/1 label per row
table = np.loadtxt(gzip.open(DATA, "rt"), delimiter=",", skiprows=1, dtype=np.float32)
x, y = table[:, :-1], table[:, -1]  # y: float32 0 or 1
order = np.random.default_rng(0).permutation(len(y))
train, test = order[:455], order[455:]
mean, std = x[train].mean(axis=0), x[train].std(axis=0)
x = (x - mean) / std

strategy = tandem.MirroredStrategy()
model = tandem.Sequential([Dense(32, activation="relu"), Dense(1, activation="sigmoid")],
                          input_shape=(30,))
model.compile(optimizer="adam", lr=1e-3, loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x[train], y[train], epochs=20, batch_size=64, strategy=strategy)
loss, accuracy = model.evaluate(x[test], y[test])
p = model.predict(x[test][:3]).ravel()  # the probability of benign, in [0, 1]
print(f"test: loss {loss:.4f}, accuracy {accuracy:.2%}")
print("first probabilities:", p.round(3), "labels:", y[test][:3])
model.save(sys.argv[1] if len(sys.argv) > 1 else "breast_cancer.safetensors")
sys.exit(0 if accuracy > 0.9 else 1)
