"""Keras' habits with arrays and calls: float64 features and int64 (or whole float)
labels converted once, fit's positional order, validation_split, shuffle,
initial_epoch, evaluate's return_dict, batch_size accepted where Keras takes it,
model(x), and NaN refused by predict as by fit."""
import numpy as np
import pytest

import tandem
from tandem import layers


def classifier(seed=4):
    model = tandem.Sequential([layers.Dense(32, activation="relu"),
                               layers.Dense(10, activation="softmax")],
                              input_shape=(64,), seed=seed)
    model.compile(optimizer="adam", lr=3e-3)
    return model


def test_float64_and_int64_train_as_float32_and_int32(pocl_pair, digits):
    """np.loadtxt's float64 features and its float64 (or int64) labels: the same
    losses as the float32 and int32 arrays, converted once."""
    x, y, _, _ = digits
    runs = []
    for features, labels in ((x, y), (x.astype(np.float64), y.astype(np.int64)),
                             (x.astype(np.float64), y.astype(np.float64))):
        model = classifier()
        runs.append(model.fit(features, labels, 64, 2, verbose=0, strategy=pocl_pair,
                              seed=1).history["loss"])
    assert runs[0] == runs[1] == runs[2]
    with pytest.raises(TypeError, match="class indices are whole numbers"):
        classifier().fit(x, y + 0.5, strategy=pocl_pair, verbose=0)
    with pytest.raises(ValueError, match="do not fit int32"):
        classifier().fit(x, y.astype(np.int64) << 40, strategy=pocl_pair, verbose=0)


def test_fit_in_keras_order(pocl_pair, digits):
    """fit(x, y, batch_size, epochs): 3 epochs of batches of 256 (6 steps each)."""
    x, y, _, _ = digits
    steps = []

    class Count(tandem.Callback):
        def on_epoch_end(self, epoch, logs=None):
            steps.append(epoch)

    history = classifier().fit(x, y, 256, 3, 0, [Count()], strategy=pocl_pair)
    assert len(history.history["loss"]) == 3 and steps == [0, 1, 2]
    assert history.epoch == [0, 1, 2]


def test_validation_split_holds_out_the_last_rows(pocl_pair, digits):
    """validation_split=0.2 scores the last fifth, exactly as validation_data of those
    rows does."""
    x, y, _, _ = digits
    split = classifier().fit(x, y, 64, 2, verbose=0, validation_split=0.2, strategy=pocl_pair,
                             seed=2).history
    keep = x.shape[0] - int(x.shape[0] * 0.2)
    given = classifier().fit(x[:keep], y[:keep], 64, 2, verbose=0,
                             validation_data=(x[keep:], y[keep:]), strategy=pocl_pair,
                             seed=2).history
    assert split["val_loss"] == given["val_loss"] and split["loss"] == given["loss"]
    with pytest.raises(ValueError, match="validation_split is a fraction in"):
        classifier().fit(x, y, validation_split=1.5, strategy=pocl_pair, verbose=0)


def test_shuffle_and_initial_epoch(pocl_pair, digits):
    """shuffle=False trains on the rows in order (other losses than shuffled, the same
    on a second run); initial_epoch=2 of epochs=4 runs epochs 2 and 3."""
    x, y, _, _ = digits
    ordered = [classifier().fit(x, y, 64, 1, verbose=0, shuffle=False, strategy=pocl_pair,
                                seed=s).history["loss"] for s in (1, 2)]
    shuffled = classifier().fit(x, y, 64, 1, verbose=0, strategy=pocl_pair, seed=1)
    assert ordered[0] == ordered[1] != shuffled.history["loss"]
    later = classifier().fit(x, y, 64, 4, verbose=0, initial_epoch=2, strategy=pocl_pair)
    assert later.epoch == [2, 3] and len(later.history["loss"]) == 2
    with pytest.raises(ValueError, match="initial_epoch 4 is an epoch before epochs"):
        classifier().fit(x, y, 64, 4, initial_epoch=4, strategy=pocl_pair, verbose=0)


def test_evaluate_predict_and_call(pocl_pair, digits):
    x, y, x_test, y_test = digits
    model = classifier()
    model.fit(x, y, 64, 2, verbose=0, strategy=pocl_pair)
    scores = model.evaluate(x_test, y_test, 32, 0)
    named = model.evaluate(x_test.astype(np.float64), y_test.astype(np.int64),
                           batch_size=128, return_dict=True)
    assert named == dict(zip(model.metrics_names, scores))
    assert set(named) == {"loss", "accuracy"}
    probabilities = model.predict(x_test, batch_size=7, verbose=0)
    assert np.array_equal(model(x_test), probabilities)
    assert np.array_equal(model.predict(x_test.astype(np.float64)), probabilities)
    bad = x_test.copy()
    bad[3, 5] = np.nan
    with pytest.raises(tandem.NumericError, match="feature 5 of example 3 is nan"):
        model.predict(bad)
    with pytest.raises(ValueError, match="batch_size must be at least 1"):
        model.predict(x_test, batch_size=0)


def test_weights_round_trip_and_restore_best(pocl_pair, digits):
    """get_weights gives every weight (variables, then a batch norm's moving
    statistics); set_weights takes them back on every replica, so predictions return;
    EarlyStopping(restore_best_weights=True) ends on its best epoch's weights."""
    x, y, x_test, y_test = digits
    model = tandem.Sequential([layers.Dense(16, activation="relu"), layers.BatchNormalization(),
                               layers.Dense(10, activation="softmax")], input_shape=(64,), seed=3)
    model.compile(optimizer="adam", lr=3e-3)
    model.fit(x, y, 64, 1, verbose=0, strategy=pocl_pair)
    saved = model.get_weights()
    assert [w.shape for w in saved] == [(64, 16), (16,), (16,), (16,), (16, 10), (10,), (16,),
                                        (16,)]
    assert sum(w.size for w in saved) == model.count_params()  # Keras counts them all
    before = model.predict(x_test)
    model.fit(x, y, 64, 2, verbose=0)
    assert not np.array_equal(model.predict(x_test), before)
    model.set_weights([w.astype(np.float64) for w in saved])
    assert np.array_equal(model.predict(x_test), before)
    assert all(np.array_equal(a, b) for a, b in zip(model.get_weights(), saved))
    with pytest.raises(ValueError, match="has shape \\(64, 16\\), given float32 array of shape"):
        model.set_weights([w.T for w in saved])
    with pytest.raises(ValueError, match="the model has 8 weights, given 7"):
        model.set_weights(saved[:7])

    stop = tandem.EarlyStopping(monitor="val_accuracy", patience=1, restore_best_weights=True)
    fresh = classifier()
    history = fresh.fit(x, y, 64, 8, verbose=0, validation_data=(x_test, y_test),
                        callbacks=[stop], strategy=pocl_pair)
    best = stop.best_epoch
    assert history.history["val_accuracy"][best] == max(history.history["val_accuracy"])
    assert fresh.evaluate(x_test, y_test, return_dict=True)["accuracy"] == \
        history.history["val_accuracy"][best]
    with pytest.raises(ValueError, match="mode is"):
        tandem.EarlyStopping(mode="up")


def test_outputs_come_from_the_layers_or_the_labels(pocl_pair, digits):
    """No silent default: the output layer or classes= say how many outputs, else the
    first fit's labels do; predicting first says what is missing."""
    x, y, _, _ = digits
    three = y % 3
    model = tandem.Sequential("16", input_shape=(64,))
    with pytest.raises(ValueError, match="the model's outputs are not known"):
        model.predict(x[:2], strategy=pocl_pair)
    model.compile(optimizer="adam")
    model.fit(x, three, 64, 1, verbose=0)
    assert model.classes == 3 and model.predict(x[:2]).shape == (2, 3)
    regression = tandem.Sequential("16", input_shape=(64,))
    regression.compile(loss="mse")
    regression.fit(x, np.stack([y, 2.0 * y], axis=1), 64, 1, verbose=0, strategy=pocl_pair)
    assert regression.classes == 2


def test_compile_in_keras_order(pocl_pair, digits):
    """compile(optimizer, loss, loss_weights, metrics), learning_rate= as lr=."""
    x, y, _, _ = digits
    model = tandem.Sequential("16", input_shape=(64,), classes=10)
    model.compile("sgd", "sparse_categorical_crossentropy", None, ["accuracy"],
                  learning_rate=0.05)
    assert model.learning_rate == 0.05 and model.metrics_names == ["loss", "accuracy"]
    model.fit(x, y, 64, 1, verbose=0, strategy=pocl_pair)
    assert model.current_learning_rate() == np.float32(0.05)
    with pytest.raises(ValueError, match="loss_weights: tandem's models have one output"):
        model.compile("adam", "mse", [1.0])
    with pytest.raises(ValueError, match="lr 0.1 and learning_rate 0.2 are one setting"):
        model.compile(lr=0.1, learning_rate=0.2)
