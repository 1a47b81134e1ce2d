"""A regression with tandem's Python package: the diabetes data in the project's
data/ (442 patients, ten measurements, the disease's progression a year later),
a mirrored strategy over the default devices, the mean squared error, then the test
split's RMSE, MAE and R^2. Exits 0 when R^2 passes 0.25 (a constant guess has 0).

    python3 examples/python/regression_diabetes.py [MODEL_FILE]
"""
import gzip
import sys
from pathlib import Path

import numpy as np

import tandem
from tandem.layers import Dense

DATA = Path(__file__).resolve().parents[2] / "data" / "diabetes.csv.gz"
table = np.loadtxt(gzip.open(DATA, "rt"), delimiter=",", skiprows=1, dtype=np.float32)
x, y = table[:, :-1], table[:, -1]  # y: float32 targets, one per patient
order = np.random.default_rng(0).permutation(len(y))
train, test = order[:354], order[354:]  # 80 % to train on, 20 % to test
mean, std = x[train].mean(axis=0), x[train].std(axis=0)
x = (x - mean) / std  # the training split's statistics for both

strategy = tandem.MirroredStrategy()
model = tandem.Sequential([Dense(32, activation="relu"), Dense(1, activation="linear")],
                          input_shape=(10,))
model.compile(optimizer="adam", lr=0.1, loss="mse", metrics=["mae", "rmse", "r2"])
history = model.fit(x[train], y[train], epochs=60, batch_size=64, strategy=strategy)
loss, mae, rmse, r2 = model.evaluate(x[test], y[test])
print(f"test: RMSE {rmse:.2f}, MAE {mae:.2f}, R^2 {r2:.4f}")
print("first predictions:", model.predict(x[test][:3]).ravel().round(1), "true:", y[test][:3])
model.save(sys.argv[1] if len(sys.argv) > 1 else "diabetes.safetensors")
sys.exit(0 if r2 > 0.25 else 1)
