"""Every loss through compile, fit, evaluate and predict, Keras' way: a regression (mse,
mae, Huber), a binary and a multi-label classifier (sigmoid outputs), one-hot
categorical labels; predict's probabilities, the metrics of each task, the model file
keeping the loss, two replicas training as one, and what is refused."""
import numpy as np
import pytest

import tandem
from tandem import layers, losses

FEATURES = 6


def data(task, rows, seed):
    """Features uniform in [-1, 1) and the task's float32 targets (as the C case
    model_tasks makes them)."""
    x = np.random.default_rng(seed).uniform(-1, 1, (rows, FEATURES)).astype(np.float32)
    a = x[:, 0] + 0.5 * x[:, 1] - x[:, 2]
    b = x[:, 3] * x[:, 4] + 0.3 * x[:, 5]
    if task == "regression":
        y = np.stack([2 * a + 0.5, x[:, 3] - 0.5 * x[:, 4] + 0.3 * x[:, 5] ** 2], axis=1)
    elif task == "binary":
        y = (a > 0)[:, None]
    elif task == "multi-label":
        y = np.stack([a > 0, b > 0, x[:, 5] > 0.2], axis=1)
    else:  # one-hot of the largest score
        y = np.eye(3)[np.stack([a, b, x[:, 5]], axis=1).argmax(axis=1)]
    return x, np.ascontiguousarray(y, dtype=np.float32)


def model_of(outputs, *output_layer, seed=7, **options):
    """A tanh layer of 32, then the output: a Dense of Keras' given in output_layer,
    else ``outputs`` units (classes=)."""
    if output_layer:
        return tandem.Sequential([layers.Dense(32, activation="tanh"), *output_layer],
                                 input_shape=(FEATURES,), seed=seed, **options)
    return tandem.Sequential([layers.Dense(32, activation="tanh")], input_shape=(FEATURES,),
                             classes=outputs, seed=seed, **options)


def fitted(model, loss, task, strategy, epochs=25, lr=1e-2, **fit_options):
    x, y = data(task, 512, 1)
    model.compile(optimizer="adam", lr=lr, loss=loss)
    history = model.fit(x, y, epochs=epochs, batch_size=32, strategy=strategy, verbose=0,
                        **fit_options)
    return model, history


def r2_score(y, p):
    """scikit-learn's r2_score: each output's R^2, then their mean."""
    residual = ((y - p) ** 2).sum(axis=0)
    total = ((y - y.mean(axis=0)) ** 2).sum(axis=0)
    return float(np.mean(1 - residual / total))


@pytest.mark.parametrize("loss", ["mse", "mean_absolute_error", losses.Huber(delta=0.5)],
                         ids=["mse", "mae", "huber"])
def test_a_regression_learns(pocl_pair, loss):
    model, history = fitted(model_of(2), loss, "regression", pocl_pair)
    assert set(history.history) == {"loss", "mae", "rmse", "r2"}
    assert history.history["loss"][-1] < history.history["loss"][0] / 3, history.history["loss"]
    x, y = data("regression", 256, 2)
    assert model.metrics_names == ["loss", "mae", "rmse", "r2"]
    value, mae, rmse, r2 = model.evaluate(x, y)
    assert r2 > 0.9 and 0 < mae <= rmse, (value, mae, rmse, r2)
    predicted = model.predict(x)
    assert predicted.shape == (256, 2) and predicted.dtype == np.float32
    assert r2_score(y, predicted) == pytest.approx(r2, abs=1e-4)
    assert np.mean(np.abs(predicted - y)) == pytest.approx(mae, rel=1e-4)
    assert np.sqrt(np.mean((predicted - y) ** 2)) == pytest.approx(rmse, rel=1e-4)
    if model.loss == "mse":
        assert value == pytest.approx(rmse ** 2, rel=1e-5)
    elif model.loss == "mae":
        assert value == pytest.approx(mae, rel=1e-5)
    else:  # Huber's delta of 0.5, over every output
        d = np.abs(predicted - y)
        huber = np.where(d <= 0.5, 0.5 * d ** 2, 0.5 * (d - 0.25))
        assert model.loss == "huber_loss" and value == pytest.approx(huber.mean(), rel=1e-4)


def test_a_binary_classifier_gives_probabilities(pocl_pair):
    model, history = fitted(model_of(1, layers.Dense(1, activation="sigmoid")),
                            "binary_crossentropy", "binary", pocl_pair)
    assert model.classes == 1 and model.output_activation == "sigmoid"
    assert set(history.history) == {"loss", "accuracy"}
    x, y = data("binary", 256, 2)
    loss, accuracy = model.evaluate(x, y[:, 0])  # a 1-D y for the one output
    assert accuracy > 0.9 and 0 < loss < 0.3, (loss, accuracy)
    p = model.predict(x)
    assert p.shape == (256, 1) and p.dtype == np.float32 and p.min() >= 0 and p.max() <= 1
    assert p.min() < 0.05 and p.max() > 0.95  # probabilities, sure of most examples
    assert np.mean((p > 0.5) == (y > 0.5)) == pytest.approx(accuracy)


def test_from_logits_trains_the_same_and_predicts_logits(pocl_pair):
    """A linear output with from_logits=True is the sigmoid output's model, its
    predictions the logits of the other's probabilities."""
    probabilities, a = fitted(model_of(1, output_activation="sigmoid"), "binary_crossentropy",
                              "binary", pocl_pair, epochs=3)
    logits, b = fitted(model_of(1, output_activation="linear"),
                       losses.BinaryCrossentropy(from_logits=True), "binary", pocl_pair,
                       epochs=3)
    assert a.history == b.history
    x, _ = data("binary", 64, 2)
    z, p = logits.predict(x), probabilities.predict(x)
    assert z.min() < 0 and z.max() > 1
    assert np.allclose(1 / (1 + np.exp(-z)), p, atol=1e-6)


def test_a_multi_label_classifier(pocl_pair):
    model, _ = fitted(model_of(3, layers.Dense(3, activation="sigmoid")),
                      losses.BinaryCrossentropy(), "multi-label", pocl_pair)
    x, y = data("multi-label", 256, 2)
    loss, accuracy = model.evaluate(x, y)
    p = model.predict(x)
    assert p.shape == (256, 3) and p.min() >= 0 and p.max() <= 1
    assert not np.allclose(p.sum(axis=1), 1, atol=0.05)  # each output on its own
    assert accuracy > 0.85, (loss, accuracy)
    assert np.mean((p > 0.5) == (y > 0.5)) == pytest.approx(accuracy)  # Keras' binary accuracy


def test_categorical_one_hot_is_sparse_on_the_indices(pocl_pair):
    onehot, a = fitted(model_of(3, layers.Dense(3, activation="softmax")),
                       "categorical_crossentropy", "categorical", pocl_pair)
    x, y = data("categorical", 256, 2)
    loss, accuracy = onehot.evaluate(x, y)
    assert accuracy > 0.85, (loss, accuracy)
    p = onehot.predict(x)
    assert p.shape == (256, 3) and np.allclose(p.sum(axis=1), 1, atol=1e-5)
    assert np.mean(p.argmax(axis=1) == y.argmax(axis=1)) == pytest.approx(accuracy)
    # The same model on the class indices, by the sparse loss, learns the same.
    sparse = model_of(3)
    train_x, train_y = data("categorical", 512, 1)
    sparse.compile(optimizer="adam", lr=1e-2)  # the sparse default, a softmax output
    b = sparse.fit(train_x, train_y.argmax(axis=1).astype(np.int32), epochs=25, batch_size=32,
                   strategy=pocl_pair, verbose=0)
    assert b.history["loss"] == pytest.approx(a.history["loss"], rel=1e-4)
    assert sparse.evaluate(x, y.argmax(axis=1).astype(np.int32)) == pytest.approx(
        [loss, accuracy], rel=1e-4)
    with pytest.raises(TypeError, match="sparse_categorical_crossentropy"):
        onehot.evaluate(x, y.argmax(axis=1).astype(np.int32))


def test_metrics_and_validation_follow_the_task(pocl_pair):
    x, y = data("regression", 512, 1)
    xv, yv = data("regression", 128, 2)
    model = model_of(2)
    model.compile(optimizer="adam", lr=1e-2, loss="mse",
                  metrics=["r2_score", "root_mean_squared_error", "mse"])
    assert model.metrics_names == ["loss", "r2", "rmse", "mse"]
    history = model.fit(x, y, epochs=2, batch_size=64, strategy=pocl_pair, verbose=0,
                        validation_data=(xv, yv), callbacks=[tandem.EarlyStopping("val_r2")])
    assert list(history.history) == ["loss", "r2", "rmse", "mse", "val_loss", "val_r2",
                                     "val_rmse", "val_mse"]
    scores = model.evaluate(xv, yv)
    assert [history.history[k][-1] for k in ("val_loss", "val_r2", "val_rmse", "val_mse")] == \
        scores
    assert scores[3] == pytest.approx(scores[2] ** 2) and scores[3] == pytest.approx(scores[0])
    with pytest.raises(ValueError, match=r"validation_data y.*\(128, 2\).*\(128, 3\)"):
        model.fit(x, y, strategy=pocl_pair, validation_data=(xv, np.zeros((128, 3), np.float32)))


def test_two_replicas_lose_as_one_device(pocl_pair):
    for loss, task, outputs in (("mse", "regression", 2), ("binary_crossentropy", "binary", 1)):
        with tandem.OneDeviceStrategy("opencl:0") as one:
            _, alone = fitted(model_of(outputs, output_activation=None), loss, task, one,
                              epochs=3)
        _, mirrored = fitted(model_of(outputs), loss, task, pocl_pair, epochs=3)
        assert mirrored.history["loss"] == pytest.approx(alone.history["loss"], rel=1e-4), loss
        assert mirrored.history["loss"][-1] < mirrored.history["loss"][0]


@pytest.mark.parametrize("loss,task,outputs", [
    (losses.Huber(delta=0.5), "regression", 2), ("binary_crossentropy", "binary", 1)],
    ids=["huber", "binary"])
def test_save_and_load_keep_the_loss(pocl_pair, tmp_path, loss, task, outputs):
    model, _ = fitted(model_of(outputs, output_activation=None), loss, task, pocl_pair,
                      epochs=3)
    path = tmp_path / "model.safetensors"
    model.save(path)
    loaded = tandem.load_model(path, strategy=pocl_pair)
    assert loaded.loss == model.loss and loaded.classes == outputs
    x, y = data(task, 128, 2)
    assert loaded.predict(x).tobytes() == model.predict(x).tobytes()
    assert loaded.evaluate(x, y) == model.evaluate(x, y)
    if task == "binary":
        p = loaded.predict(x)
        assert p.min() >= 0 and p.max() <= 1 and loaded.metrics_names == ["loss", "accuracy"]
    else:
        assert loaded.metrics_names == ["loss", "mae", "rmse", "r2"]
        assert loaded.predict(x).min() < 0  # values, not probabilities
        with pytest.raises(ValueError, match=r"huber_loss \(delta 0.5\)"):
            loaded.compile(loss=losses.Huber(delta=2.0))
        loaded.compile(loss=losses.Huber(delta=0.5))
    with pytest.raises(ValueError, match="part of the model"):
        loaded.compile(loss="categorical_crossentropy")
    loaded.compile(optimizer="sgd", lr=0.01)  # the file's loss, trained on
    x, y = data(task, 256, 1)
    assert len(loaded.fit(x, y, epochs=1, strategy=pocl_pair, verbose=0).history["loss"]) == 1


def test_what_does_not_fit_is_refused(pocl_pair):
    with pytest.raises(ValueError, match=r"unknown 'msle'.*\"mse\" \(\"mean_squared_error\"\)"):
        model_of(1).compile(loss="msle")
    with pytest.raises(ValueError, match=r"linear output layer gives logits.*from_logits=True"):
        model_of(1, output_activation="linear").compile(loss="binary_crossentropy")
    with pytest.raises(ValueError, match="regression's"):
        model_of(1, layers.Dense(1, activation="sigmoid")).compile(loss="mse")
    with pytest.raises(ValueError, match="each output on its own"):
        model_of(2, layers.Dense(2, activation="softmax")).compile(loss="binary_crossentropy")
    with pytest.raises(ValueError, match="softmax distribution"):
        model_of(2, layers.Dense(2, activation="sigmoid")).compile(
            loss="categorical_crossentropy")
    with pytest.raises(ValueError, match="from_logits=True takes the output layer's logits"):
        model_of(1, layers.Dense(1, activation="sigmoid")).compile(
            loss=losses.BinaryCrossentropy(from_logits=True))
    with pytest.raises(ValueError, match="'accuracy' does not fit loss \"mse\""):
        model_of(1).compile(loss="mse", metrics=["accuracy"])
    with pytest.raises(ValueError, match="'mae' does not fit loss \"binary_crossentropy\""):
        model_of(1, output_activation="sigmoid").compile(loss="binary_crossentropy",
                                                         metrics=["mae"])
    with pytest.raises(ValueError, match="unknown 'auc'"):
        model_of(1).compile(loss="mse", metrics=["auc"])
    with pytest.raises(ValueError, match="output_activation"):
        model_of(1, output_activation="relu")
    with pytest.raises(ValueError, match="classes: 3, but the output layer"):
        tandem.Sequential([layers.Dense(2, activation="softmax")], classes=3)
    # Targets of the wrong shape or dtype, named before any training.
    x, y = data("regression", 64, 1)
    model = model_of(2)
    model.compile(loss="mse")
    with pytest.raises(ValueError, match=r"\"mse\" takes float32 targets of shape \(64, 2\)"
                                         r".*\(64,\)"):
        model.fit(x, np.ascontiguousarray(y[:, 0]), strategy=pocl_pair, verbose=0)
    with pytest.raises(ValueError, match=r"shape \(64, 2\).*got float32 array of shape \(63, 2\)"):
        model.evaluate(x, y[:63])
    with pytest.raises(TypeError, match=r"expected numbers, got <U\d+ array of shape \(64, 2\)"):
        model.fit(x, y.astype(str), strategy=pocl_pair, verbose=0)
    assert model.current_learning_rate() == model.learning_rate  # compile's, before a step
    # The library checks what it is given too: a NaN target is named.
    y[5, 1] = np.nan
    with pytest.raises(tandem.NumericError, match="target 1 of example 5"):
        model.fit(x, y, strategy=pocl_pair, verbose=0)


def test_compile_rebuilds_an_untrained_model(pocl_pair):
    """predict before compile builds the model; a loss compiled afterwards rebuilds it
    with the same weights, so the outputs differ only by what predict makes of them."""
    model = model_of(1)
    x, _ = data("binary", 32, 2)
    softmax = model.predict(x, strategy=pocl_pair)  # the sparse default's softmax
    assert np.all(softmax == 1)  # one output: its softmax is 1
    model.compile(loss=losses.BinaryCrossentropy(from_logits=True))
    logits = model.predict(x)
    model.compile(loss="mse")
    assert model.predict(x).tobytes() == logits.tobytes()
    assert model.evaluate(x, np.zeros(32, np.float32))[0] == pytest.approx(
        float(np.mean(logits ** 2)), rel=1e-5)


def test_early_stopping_knows_r2_rises():
    stop = tandem.EarlyStopping("val_r2")
    stop.on_train_begin()
    assert stop.on_epoch_end(0, {"val_r2": 0.5}) is None
    assert stop.on_epoch_end(1, {"val_r2": 0.7}) is None
    assert stop.on_epoch_end(2, {"val_r2": 0.6}) is True
