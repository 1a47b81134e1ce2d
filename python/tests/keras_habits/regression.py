"""A regression as Keras' guides write one (the Boston-housing style), run on
tandem with only the import lines changed: eight float64 features, one float target,
mse with mae reported, checkpoints of the best model and a CSV log."""
import numpy as np

import tandem as keras  # Keras: import keras
from tandem import layers  # Keras: from keras import layers

rng = np.random.default_rng(3)
x = rng.normal(size=(1000, 8))
weights = rng.normal(size=(8,))
y = x @ weights + 0.3 * np.sin(3 * x[:, 0]) + 0.05 * rng.normal(size=1000)
x_train, y_train, x_test, y_test = x[:800], y[:800], x[800:], y[800:]

model = keras.Sequential([
    keras.Input(shape=(8,)),
    layers.Dense(64, activation="relu"),
    layers.Dense(64, activation="relu"),
    layers.Dense(1),
])
model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=1e-3), loss="mse",
              metrics=["mae"])
callbacks = [keras.callbacks.ModelCheckpoint("best.safetensors", monitor="val_loss",
                                             save_best_only=True),
             keras.callbacks.CSVLogger("training.csv"),
             keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr if epoch < 10
                                                   else lr * 0.9)]
history = model.fit(x_train, y_train, batch_size=32, epochs=25,
                    validation_data=(x_test, y_test), callbacks=callbacks, verbose=0)
results = model.evaluate(x_test, y_test, batch_size=64, return_dict=True, verbose=0)
predictions = model.predict(x_test, batch_size=64, verbose=0)
assert predictions.shape == (200, 1)
best = keras.load_model("best.safetensors")
print("test_mae", results["mae"])
print("best_mae", best.evaluate(x_test, y_test, return_dict=True, verbose=0)["mae"])
