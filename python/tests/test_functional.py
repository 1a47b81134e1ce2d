"""Keras' functional way: tandem.Input, layers called on tensors, tandem.Model. A
two-branch graph learns the digits over two PoCL devices, is the library's graph text
of the CLI's example, round-trips through its file, and a graph that makes no model
raises naming the layer."""
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
    with pytest.raises(ValueError, match="several inputs are not supported yet"):
        tandem.Model([x, tandem.Input(shape=(3,))], layers.Dense(2)(a))
    with pytest.raises(ValueError, match="the output of a Dense layer"):
        tandem.Model(x, a)
    with pytest.raises(ValueError, match="depends on a tandem.Input that is not the model's"):
        tandem.Model(x, layers.Dense(2)(layers.Add()([a, tandem.Input(shape=(8, 8, 4))])))
    with pytest.raises(TypeError, match="called on tandem tensors"):
        layers.Dense(3)(np.zeros(3))
    with pytest.raises(ValueError, match="tandem joins on the channel axis"):
        layers.Concatenate(axis=1)
