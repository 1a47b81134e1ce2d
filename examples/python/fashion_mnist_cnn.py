"""A CNN on Fashion-MNIST over two devices: the model `tandem bench train` calls
fashion-cnn (conv32k3,pool2,conv64k3,pool2,128), trained mirrored, scored on the test
set after every epoch, saved where `tandem predict --model` reads it.

The data are Debian's dataset-fashion-mnist (apt install dataset-fashion-mnist), whose
IDX files are read here with numpy alone.

    python3 examples/python/fashion_mnist_cnn.py [--devices opencl:0,opencl:1]
        [--epochs 3] [--limit ROWS] [--save fashion.safetensors]
"""
import argparse
import gzip
import sys
from pathlib import Path

import numpy as np

import tandem

DATA = Path("/usr/share/datasets/fashion-mnist")


def idx(name: str, header: int) -> np.ndarray:
    """The bytes of an IDX file after its header (16 bytes for images, 8 for labels)."""
    with gzip.open(DATA / name, "rb") as file:
        return np.frombuffer(file.read()[header:], dtype=np.uint8)


def split(kind: str, limit: int):
    images = idx(f"{kind}-images-idx3-ubyte.gz", 16).reshape(-1, 28, 28, 1)[:limit]
    labels = idx(f"{kind}-labels-idx1-ubyte.gz", 8)[:limit]
    # float32 pixels in [0, 1] and int32 labels, C-contiguous: what tandem reads in place
    return (images / np.float32(255)).astype(np.float32), labels.astype(np.int32)


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--devices", default=None, help="comma-separated ids (default: the "
                    "default devices)")
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--limit", type=int, default=None, help="train on the first ROWS images")
parser.add_argument("--save", default="fashion.safetensors")
args = parser.parse_args()
if not (DATA / "train-images-idx3-ubyte.gz").exists():
    sys.exit(f"no Fashion-MNIST in {DATA}: apt install dataset-fashion-mnist")

x, y = split("train", args.limit)
x_test, y_test = split("t10k", None)
strategy = tandem.MirroredStrategy(args.devices.split(",") if args.devices else None)
print(f"{len(y)} images on {', '.join(strategy.devices)}")

model = tandem.Sequential("conv32k3,pool2,conv64k3,pool2,128", input_shape=(28, 28, 1),
                          classes=10)
model.compile(optimizer="adam", lr=1e-3)
history = model.fit(x, y, epochs=args.epochs, batch_size=64, strategy=strategy, verbose=1,
                    validation_data=(x_test, y_test))
print(f"test accuracy {history.history['val_accuracy'][-1]:.2%}")
model.save(args.save)
