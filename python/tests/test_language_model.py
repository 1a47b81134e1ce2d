"""A language model over bytes from Python: text_windows cuts what `tandem train --text`
cuts, a per-position model fitted on them over two PoCL devices saves the CLI's model
byte for byte and learns, evaluate scores per token as the library does, and generate
draws the bytes `tandem generate` draws; the refusals are the library's."""
import gzip
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import tandem
from tandem import layers

CONTEXT, SLICE, EPOCHS = 16, 20000, 3
LAYERS = "emb256x16,pos,block2,ln"


@pytest.fixture(scope="module")
def text():
    return gzip.decompress(tandem.bundled_text().read_bytes())[:SLICE]


def cli(*args: str) -> "subprocess.CompletedProcess[bytes]":
    done = subprocess.run([sys.executable, "-m", "tandem", *args], capture_output=True,
                          timeout=120)
    assert done.returncode == 0, (done.stdout + done.stderr).decode()
    return done


def test_text_windows_cut_the_text(text, tmp_path):
    plain, packed = tmp_path / "slice.txt", tmp_path / "slice.txt.gz"
    plain.write_bytes(text)
    packed.write_bytes(gzip.compress(text))
    x, y, x_val, y_val = tandem.text_windows(plain, context=CONTEXT)
    # windows of 17 bytes every 16: the training part is the first 18000 bytes (9/10
    # of 20000, a multiple of the stride), the held-out windows start there
    assert x.shape == y.shape == (1124, CONTEXT) and x_val.shape == y_val.shape == (124, CONTEXT)
    assert x.dtype == np.float32 and y.dtype == np.int32
    for r in (0, 500, 1123):
        assert bytes(x[r].astype(np.uint8)) == text[r * 16:r * 16 + 16]
        assert bytes(y[r].astype(np.uint8)) == text[r * 16 + 1:r * 16 + 17]
    assert bytes(x_val[0].astype(np.uint8)) == text[18000:18016]
    assert bytes(y_val[-1].astype(np.uint8)) == text[18000 + 123 * 16 + 1:18000 + 124 * 16 + 1]
    for other in (tandem.text_windows(packed, context=CONTEXT),
                  tandem.text_windows(text, context=CONTEXT),
                  tandem.text_windows(bytearray(text), CONTEXT, CONTEXT, 0.1)):
        assert all(np.array_equal(a, b) for a, b in zip((x, y, x_val, y_val), other))
    strided = tandem.text_windows(text, context=CONTEXT, stride=8)
    assert strided[0].shape[0] == (18000 - 17) // 8 + 1 == 2248
    assert np.array_equal(strided[0][1], x[0][8:].tolist() + x[1][:8].tolist())


def test_text_windows_refusals(text, tmp_path):
    with pytest.raises(ValueError, match="the bytes given: the text is empty"):
        tandem.text_windows(b"")
    (tmp_path / "empty.txt").write_bytes(b"")
    with pytest.raises(tandem.InvalidArgumentError, match="empty.txt: the file is empty"):
        tandem.text_windows(tmp_path / "empty.txt")
    with pytest.raises(ValueError, match="byte 11 is NUL: a binary file"):
        tandem.text_windows(text[:10] + b"\0" + text[11:])
    with pytest.raises(ValueError, match="its held-out part .* is shorter than one window"):
        tandem.text_windows(text, context=2500)
    with pytest.raises(ValueError, match="context 0 and stride 16 must be > 0"):
        tandem.text_windows(text, context=0, stride=16)
    with pytest.raises(tandem.NotFoundError, match="missing.txt"):
        tandem.text_windows(tmp_path / "missing.txt")


@pytest.fixture(scope="module")
def trained(pocl_pair, text, tmp_path_factory):
    """The same language model trained by `tandem train --text` and by fit on
    text_windows, each saved."""
    folder = tmp_path_factory.mktemp("lm")
    (folder / "slice.txt").write_bytes(text)
    log = cli("train", "--text", str(folder / "slice.txt"), "--context", str(CONTEXT),
              "--layers", LAYERS, "--seed", "5", "--epochs", str(EPOCHS), "--batch", "64",
              "--optimizer", "adam", "--lr", "0.003", "--devices", ",".join(pocl_pair.devices),
              "--no-progress", "--save", str(folder / "cli.tdm")).stdout.decode()
    x, y, x_val, y_val = tandem.text_windows(folder / "slice.txt", context=CONTEXT)
    model = tandem.Sequential(LAYERS, input_shape=(CONTEXT,), classes=256, per_position=True,
                              seed=5)
    model.compile(optimizer="adam", lr=3e-3)
    history = model.fit(x, y, epochs=EPOCHS, batch_size=64, validation_data=(x_val, y_val),
                        strategy=pocl_pair, seed=5, verbose=0)
    model.save(folder / "fit.tdm")
    return SimpleNamespace(folder=folder, log=log, model=model, history=history, x_val=x_val,
                           y_val=y_val, rows=(len(x), len(x_val)))


def test_fit_is_tandem_train_text_byte_for_byte(trained):
    # the CLI's windows are text_windows', and its model Sequential(per_position=True)'s
    assert (f"{trained.rows[0]} windows for training, {trained.rows[1]} held out"
            in trained.log)
    assert ((trained.folder / "fit.tdm").read_bytes()
            == (trained.folder / "cli.tdm").read_bytes())
    last = trained.log.split(f"epoch {EPOCHS}/{EPOCHS}", 1)[1]
    val_loss = float(last.split("val loss ", 1)[1].split()[0])
    val_accuracy = float(last.split("val acc ", 1)[1].split("%")[0])
    assert trained.history.history["val_loss"][-1] == pytest.approx(val_loss, abs=5e-5)
    assert trained.history.history["val_accuracy"][-1] * 100 == pytest.approx(val_accuracy,
                                                                              abs=5e-3)


def test_the_language_model_learns(trained):
    losses = trained.history.history["val_loss"]
    assert len(losses) == EPOCHS and losses[-1] < losses[0] - 0.5, losses
    assert trained.model.layers[-1] == ("layer_norm", "ln")
    assert trained.model.spec == LAYERS


def test_evaluate_scores_each_token(trained):
    """evaluate's loss and accuracy per token against numpy's from predict, a masked
    position (label -1) counting 0 in its example's mean and out of the accuracy."""
    model, x, y = trained.model, trained.x_val, trained.y_val.copy()
    y[::3, -4:] = -1
    p = model.predict(x)
    assert p.shape == (len(x), CONTEXT, 256)
    assert np.allclose(p.sum(axis=-1), 1, atol=1e-5)
    kept = y >= 0
    nll = -np.log(np.take_along_axis(p, np.maximum(y, 0)[..., None], -1)[..., 0])
    loss = np.mean(np.where(kept, nll, 0).sum(axis=1) / CONTEXT)
    accuracy = np.sum((p.argmax(axis=-1) == y) & kept) / kept.sum()
    scored = model.evaluate(x, y, return_dict=True)
    assert scored["loss"] == pytest.approx(loss, rel=1e-4)
    assert scored["accuracy"] == pytest.approx(accuracy, abs=1e-9)
    assert model.evaluate(x, trained.y_val)[0] == pytest.approx(
        trained.history.history["val_loss"][-1], rel=1e-9)


def test_per_position_labels_refused(trained, pocl_pair):
    x, y = trained.x_val, trained.y_val
    flat = tandem.Sequential(LAYERS, input_shape=(CONTEXT,), classes=256)
    flat.compile()
    with pytest.raises(ValueError, match=r"shape \(124, 16\), one per position.*"
                                         r"per_position=True"):
        flat.fit(x, y, strategy=pocl_pair, verbose=0)
    with pytest.raises(tandem.InvalidArgumentError, match="the labels are 8 class indices per "
                                                          "example"):
        trained.model.evaluate(x, y[:, :8])
    with pytest.raises(ValueError, match=r"expected 124 rows of int32 class indices"):
        trained.model.evaluate(x, y[:10])


def test_layer_objects_per_position(trained):
    """Keras' way, a Dense output layer on a sequence: per_position makes it the 1x1
    convolution, the string's model."""
    objects = tandem.Sequential([layers.Embedding(256, 16), layers.PositionEmbedding(),
                                 layers.TransformerBlock(2), layers.LayerNormalization(),
                                 layers.Dense(256)], input_shape=(CONTEXT,), per_position=True,
                                strategy=trained.model.strategy)
    assert objects.count_params() == trained.model.count_params() == 12016
    assert objects.predict(trained.x_val[:2]).shape == (2, CONTEXT, 256)


@pytest.mark.parametrize("options", [{"seed": 3}, {"seed": 4, "top_k": 5, "temperature": 0.8},
                                     {"temperature": 0}])
def test_generate_is_tandem_generate(trained, options):
    flags = [word for k, v in options.items() for word in (f"--{k.replace('_', '-')}", str(v))]
    written = cli("generate", "--model", str(trained.folder / "fit.tdm"), "--device",
                  trained.model.strategy.devices[0], "--prompt", "ROMEO:", "--tokens", "80",
                  *flags).stdout
    drawn = trained.model.generate(b"ROMEO:", tokens=80, **options)
    assert written == drawn + b"\n" and len(drawn) == 86
    loaded = tandem.load_model(trained.folder / "cli.tdm", strategy=trained.model.strategy)
    assert loaded.per_position and loaded.classes == 256
    assert loaded.generate(b"ROMEO:", tokens=80, **options) == drawn
    assert trained.model.generate("ROMEO:", 80, **options) == drawn.decode("utf-8", "replace")


def test_generate_refusals(trained):
    with pytest.raises(ValueError, match="a prompt of 17 bytes, longer than the model's context "
                                         "of 16 bytes"):
        trained.model.generate("ABCDEFGHIJKLMNOPQ")
    with pytest.raises(ValueError, match="an empty prompt"):
        trained.model.generate(b"")
    digits = tandem.Sequential("16", input_shape=(64,), classes=10,
                               strategy=trained.model.strategy)
    with pytest.raises(RuntimeError, match="no weights yet"):
        digits.generate("a")
    digits.count_params()  # builds it
    with pytest.raises(tandem.InvalidArgumentError,
                       match="not a language model: it reads 64 features and gives 10 outputs"):
        digits.generate("a")
