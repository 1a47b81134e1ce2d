"""Keras' functional way: tandem.Input, layers called on tensors, tandem.Model. A
two-branch graph learns the digits over two PoCL devices, is the library's graph text
of the CLI's example, round-trips through its file, and a graph that makes no model
raises naming the layer. A model of two inputs (the digits' top and bottom halves)
takes a list of arrays, learns, round-trips through its file, and equals the model of
one input that reads the same columns twice."""
from pathlib import Path

import numpy as np
import pytest

import tandem
from tandem import layers

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "models" / "digits_two_branch.txt"


def two_branches(output_activation="softmax"):
    """examples/models/digits_two_branch.txt, written the functional way."""
    x = tandem.Input(shape=(8, 8, 1))
    a = layers.Conv2D(16, 3, padding="same", activation="relu")(x)
    b = layers.Conv2D(8, 1, padding="same", activation="relu")(x)
    c = layers.Concatenate()([a, b])
    d = layers.Conv2D(16, 3, padding="same", activation="relu")(c)
    e = layers.Add()([d, a])
    f = layers.GlobalAveragePooling2D()(e)
    g = layers.Dense(32, activation="relu")(x)
    h = layers.Concatenate()([f, g])
    out = layers.Dense(10, activation=output_activation)(h)
    return x, out


def test_the_graph_is_the_examples_text():
    x, out = two_branches()
    model = tandem.Model(x, out)
    assert [kind for kind, _ in model.layers] == [
        "conv2d", "conv2d", "concatenate", "conv2d", "add", "global_avg_pool2d", "dense",
        "concatenate", "dense"]
    # the library reads both to the same layers, in the same order
    assert model.layers == tandem._tandem.parse_layers(EXAMPLE.read_text())
    lines = [line.split("#")[0].strip() for line in EXAMPLE.read_text().splitlines()]
    activations = [line.split(")")[1].strip() for line in lines if line]
    assert [line.split(")")[1].strip() for line in model.spec.splitlines()] == activations


def test_a_graph_learns_and_round_trips(pocl_pair, digits, tmp_path):
    x, y, x_test, y_test = digits
    images = x.reshape(-1, 8, 8, 1)
    inputs, out = two_branches()
    model = tandem.Model(inputs, out, seed=3)
    model.compile(optimizer="adam", lr=3e-3)
    history = model.fit(images, y, epochs=4, batch_size=64, strategy=pocl_pair, seed=3)
    assert history.history["loss"][-1] < history.history["loss"][0] / 3
    loss, accuracy = model.evaluate(x_test.reshape(-1, 8, 8, 1), y_test)
    assert accuracy > 0.85, (loss, accuracy)
    probabilities = model.predict(x_test.reshape(-1, 8, 8, 1))
    assert probabilities.shape == (len(y_test), 10)
    assert np.allclose(probabilities.sum(axis=1), 1, atol=1e-5)
    model.save(tmp_path / "graph.safetensors")
    assert b'"format_version":"3"' in (tmp_path / "graph.safetensors").read_bytes()
    again = tandem.load_model(tmp_path / "graph.safetensors", strategy=pocl_pair)
    assert np.array_equal(again.predict(x_test), probabilities)


def test_graphs_that_make_no_model(pocl_pair):
    x = tandem.Input(shape=(8, 8, 1))
    a = layers.Conv2D(4, 3, padding="same", activation="relu")(x)
    bad = layers.Add()([a, x])  # 8 x 8 x 4 against 8 x 8 x 1
    model = tandem.Model(x, layers.Dense(10, activation="softmax")(bad))
    model.compile()
    with pytest.raises(tandem.InvalidArgumentError,
                       match="layer 1 .add. merges layer 0, 8 x 8 x 4, with the model's input"):
        model.fit(np.zeros((4, 8, 8, 1), np.float32), np.zeros(4, np.int32),
                  strategy=pocl_pair)
    with pytest.raises(ValueError, match="the output does not depend on input 1"):
        tandem.Model([x, tandem.Input(shape=(3,))], layers.Dense(2)(a))
    with pytest.raises(ValueError, match="an input is given twice"):
        tandem.Model([x, x], layers.Dense(2)(a))
    with pytest.raises(ValueError, match="the output of a Dense layer"):
        tandem.Model(x, a)
    with pytest.raises(ValueError, match="depends on a tandem.Input that is not among the model's inputs"):
        tandem.Model(x, layers.Dense(2)(layers.Add()([a, tandem.Input(shape=(8, 8, 4))])))
    with pytest.raises(TypeError, match="called on tandem tensors"):
        layers.Dense(3)(np.zeros(3))
    with pytest.raises(ValueError, match="tandem joins on the channel axis"):
        layers.Concatenate(axis=1)


def halves():
    """The digits' top and bottom halves, each a branch of its own."""
    top, bottom = tandem.Input(shape=(32,)), tandem.Input(shape=(32,))
    a = layers.Dense(32, activation="relu")(top)
    b = layers.Dense(32, activation="relu")(bottom)
    out = layers.Dense(10, activation="softmax")(layers.Concatenate()([a, b]))
    return [top, bottom], out


def test_two_inputs_learn_and_round_trip(pocl_pair, digits, tmp_path):
    x, y, x_test, y_test = digits
    inputs, out = halves()
    model = tandem.Model(inputs, out, seed=3)
    assert model.spec.splitlines()[:3] == [
        "input0 = input(32)", "input1 = input(32)", "l0 = dense32(input0) relu"]
    model.compile(optimizer="adam", lr=3e-3)
    history = model.fit([x[:, :32], x[:, 32:]], y, epochs=6, batch_size=64,
                        strategy=pocl_pair, seed=3,
                        validation_data=([x_test[:, :32], x_test[:, 32:]], y_test))
    assert history.history["loss"][-1] < history.history["loss"][0] / 3
    assert history.history["val_accuracy"][-1] > 0.85, history.history
    split = [x_test[:, :32], x_test[:, 32:]]
    probabilities = model.predict(split)
    model.save(tmp_path / "halves.safetensors")
    assert b'"input_widths":"32,32"' in (tmp_path / "halves.safetensors").read_bytes()
    again = tandem.load_model(tmp_path / "halves.safetensors", strategy=pocl_pair)
    assert again.input_shapes == [(32,), (32,)]
    assert np.array_equal(again.predict(split), probabilities)
    with pytest.raises(TypeError, match="a model of 2 inputs takes a list of 2 arrays"):
        model.predict(x_test)
    with pytest.raises(ValueError, match=r"predict: x\[1\]: expected shape \(rows, 32\)"):
        model.predict([x_test[:, :32], x_test[:, 30:]])
    with pytest.raises(ValueError, match="the inputs have 10, 9 rows"):
        model.predict([x_test[:10, :32], x_test[:9, 32:]])


def test_two_inputs_equal_one_read_twice(pocl_pair, digits):
    """The same columns as two inputs, or one input read by both branches: the same
    losses, bit for bit."""
    x, y, _, _ = digits
    one = tandem.Input(shape=(64,))
    out = layers.Dense(10, activation="softmax")(layers.Concatenate()(
        [layers.Dense(16, activation="tanh")(one), layers.Dense(16, activation="tanh")(one)]))
    first, second = tandem.Input(shape=(64,)), tandem.Input(shape=(64,))
    out2 = layers.Dense(10, activation="softmax")(layers.Concatenate()(
        [layers.Dense(16, activation="tanh")(first), layers.Dense(16, activation="tanh")(second)]))
    losses = []
    for model, data in ((tandem.Model(one, out, seed=5), x),
                        (tandem.Model([first, second], out2, seed=5), [x, x])):
        model.compile(optimizer="sgd", lr=0.05)
        losses.append(model.fit(data, y, epochs=2, batch_size=64, strategy=pocl_pair,
                                seed=5).history["loss"])
    assert losses[0] == losses[1]
