"""A tabular classifier as Keras' guides write one, run on tandem with only the
import lines changed. Three classes from four numeric columns, float64 features and
int64 labels as np.loadtxt and pandas give them."""
import numpy as np

import tandem as keras  # Keras: import keras
from tandem import layers  # Keras: from keras import layers

rng = np.random.default_rng(7)
x = rng.normal(size=(1200, 4))  # float64
y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int64) + (x[:, 2] > 1.0)  # int64, 3 classes
x_train, y_train, x_test, y_test = x[:1000], y[:1000], x[1000:], y[1000:]

model = keras.Sequential([
    keras.Input(shape=(4,)),
    layers.Dense(32, activation="relu"),
    layers.Dropout(0.1),
    layers.Dense(16, activation="relu"),
    layers.Dense(3, activation="softmax"),
])
model.summary()
model.compile(optimizer=keras.optimizers.Adam(learning_rate=1e-2),
              loss="sparse_categorical_crossentropy", metrics=["accuracy"])
callbacks = [keras.callbacks.EarlyStopping(monitor="val_loss", patience=3,
                                           restore_best_weights=True),
             keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2)]
history = model.fit(x_train, y_train, batch_size=32, epochs=30, validation_split=0.2,
                    callbacks=callbacks, verbose=0)
loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
probabilities = model.predict(x_test[:5], verbose=0)
assert probabilities.shape == (5, 3)
print("params", model.count_params())
print("test_accuracy", accuracy)
