"""compile's and Sequential's training options, each seen to act: learning-rate
schedules, gradient clipping, an f16 all-reduce, balancing, the convolution
algorithm and f16 activations."""
import math

import numpy as np
import pytest

import tandem


def trained(strategy, digits, epochs=2, layers="32", model_options=None, **options):
    x, y, _, _ = digits
    shape = (64,)
    if layers.startswith("conv"):
        x, shape = x.reshape(-1, 8, 8, 1), (8, 8, 1)
    model = tandem.Sequential(layers, input_shape=shape, classes=10, seed=3,
                              **(model_options or {}))
    model.compile(optimizer=options.pop("optimizer", "adam"), lr=options.pop("lr", 5e-3),
                  **options)
    history = model.fit(x, y, epochs=epochs, batch_size=64, strategy=strategy, verbose=0)
    return model, history.history["loss"]


def steps(digits, epochs=2):
    return epochs * math.ceil(len(digits[1]) / 64)


def test_learning_rate_schedules(pocl_pair, digits):
    constant, constant_loss = trained(pocl_pair, digits)
    assert constant.current_learning_rate() == pytest.approx(5e-3)
    cosine, cosine_loss = trained(pocl_pair, digits, lr_decay="cosine")
    assert cosine.current_learning_rate() == 0.0  # down to final_lr over the fit's steps
    assert cosine_loss != constant_loss
    exponential, _ = trained(pocl_pair, digits, lr_decay="exponential", decay_steps=10,
                             decay_rate=0.5)
    assert exponential.current_learning_rate() == pytest.approx(
        5e-3 * 0.5 ** (steps(digits) / 10), rel=1e-4)
    stepped, _ = trained(pocl_pair, digits, lr_decay="step", decay_steps=10, decay_rate=0.5)
    assert stepped.current_learning_rate() == pytest.approx(
        5e-3 * 0.5 ** (steps(digits) // 10), rel=1e-6)
    with pytest.raises(ValueError, match="lr_decay"):
        tandem.Sequential("8").compile(lr_decay="linear")
    with pytest.raises(ValueError, match="decay_steps"):
        tandem.Sequential("8").compile(lr_decay="exponential")


def test_clipping(pocl_pair, digits):
    sgd = {"optimizer": "sgd", "lr": 0.1}  # Adam's steps would not feel the gradients' size
    _, free = trained(pocl_pair, digits, **sgd)
    _, by_norm = trained(pocl_pair, digits, global_clipnorm=1e-3, **sgd)
    _, by_value = trained(pocl_pair, digits, clipvalue=1e-6, **sgd)
    # gradients cut that small leave the loss near its start (ln 10)
    assert by_value[-1] > free[-1] + 0.5 and by_norm[-1] > free[-1] + 0.5
    assert by_norm != by_value


def test_f16_all_reduce_scales_the_loss(pocl_pair, digits):
    plain, plain_loss = trained(pocl_pair, digits)
    assert plain.loss_scale() == 1.0
    f16, f16_loss = trained(pocl_pair, digits, f16_all_reduce=True)
    assert f16.loss_scale() >= 32768.0
    assert f16_loss != plain_loss  # summed in f16, rounded otherwise
    scaled, _ = trained(pocl_pair, digits, f16_all_reduce=True, loss_scale=1024.0)
    assert scaled.loss_scale() == 1024.0


def test_balance_measures_the_replicas(pocl_pair, digits):
    plain, _ = trained(pocl_pair, digits, epochs=1)
    assert plain.replica_rate() == 0.0
    balanced, _ = trained(pocl_pair, digits, epochs=1, balance=True)
    assert balanced.replica_rate() > 0.0


@pytest.mark.parametrize("conv", ["direct", "lowered"])
def test_the_convolution_algorithm(pocl_pair, digits, conv):
    model, _ = trained(pocl_pair, digits, epochs=1, layers="conv4k3,16",
                       model_options={"conv": conv})
    assert model.conv_algorithms() == [conv]


def test_f16_activations(pocl_pair, digits):
    mixed, mixed_loss = trained(pocl_pair, digits, model_options={"mixed_precision": True})
    f16, f16_loss = trained(pocl_pair, digits, model_options={"f16_activations": True})
    assert f16.mixed_precision and f16.loss_scale() > 1.0
    assert np.isfinite(f16_loss).all() and f16_loss != mixed_loss
    with pytest.raises(tandem.TandemError, match="conv"):
        tandem.Sequential("8", input_shape=(64,), classes=10, conv="sideways").predict(
            np.zeros((1, 64), np.float32), strategy=pocl_pair)
