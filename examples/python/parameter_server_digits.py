"""Parameter servers from Python: every process of an MPI job runs this script; the
last one keeps and updates the variables, the others each train on their shard of
the digits and exchange gradients and values with it, without waiting for each
other. The chief then scores the model it ends with on the held-out fifth and saves
it. Exits 0 when the test accuracy passes 85 %.

    mpirun -n 3 ENV/bin/python examples/python/parameter_server_digits.py [MODEL_FILE]

(as root, and on fewer than 3 cores: mpirun --allow-run-as-root --oversubscribe).
"""
import sys

import numpy as np

import tandem

x, y = tandem.load_digits()  # 1797 8x8 images, pixels 0-16
x = x / np.float32(16)
order = np.random.default_rng(0).permutation(len(y))
train, test = order[:1437], order[1437:]  # 80 % to train on, 20 % to test

# Each process's own devices: the default ones' first.
device = next(d.id for d in tandem.devices() if d.default)
strategy = tandem.ParameterServerStrategy([device], ps_processes=1)
model = tandem.Sequential([tandem.layers.Dense(64, activation="relu")], input_shape=(64,), classes=10)
model.compile(optimizer="adam", lr=5e-3)
model.fit(x[train], y[train], epochs=3, batch_size=32, strategy=strategy, verbose=2)
if strategy.is_parameter_server:
    sys.exit(0)  # served every worker until each had finished
loss, accuracy = model.evaluate(x[test], y[test])
if strategy.is_chief:
    print(f"{strategy.num_workers} workers, {strategy.num_parameter_servers} server: "
          f"test loss {loss:.4f}, accuracy {accuracy:.2%}")
    model.save(sys.argv[1] if len(sys.argv) > 1 else "digits.safetensors")
sys.exit(0 if accuracy > 0.85 else 1)
