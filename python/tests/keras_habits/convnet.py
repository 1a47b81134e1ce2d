"""A small convnet as Keras' "simple MNIST convnet" example writes it, run on tandem
with only the import lines changed, on 8x8 images (the bundled digits, read with
numpy as a user's file would be)."""
import gzip
import os

import numpy as np

import tandem as keras  # Keras: import keras
from tandem import layers  # Keras: from keras import layers

with gzip.open(os.environ["TANDEM_DIGITS"], "rt") as f:
    table = np.loadtxt(f, delimiter=",")  # float64: 64 pixels, then the label
x = (table[:, :64] / 16.0).reshape(-1, 8, 8, 1)
y = table[:, 64]  # float64 class numbers
num_classes = 10
x_train, y_train, x_test, y_test = x[:1400], y[:1400], x[1400:], y[1400:]

model = keras.Sequential([
    keras.Input(shape=(8, 8, 1)),
    layers.Conv2D(16, kernel_size=(3, 3), activation="relu", padding="same"),
    layers.MaxPooling2D(pool_size=(2, 2)),
    layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
    layers.Flatten(),
    layers.Dense(64, activation="relu"),
    layers.Dropout(0.25),
    layers.Dense(num_classes, activation="softmax"),
])
model.summary()
model.compile(loss="sparse_categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=64, epochs=12, validation_split=0.1, verbose=0)
score = model.evaluate(x_test, y_test, verbose=0)
print("test_accuracy", score[1])
