"""Model.export_onnx: a model fitted on two PoCL devices, written as ONNX, computes in
onnxruntime what predict returns, within 1e-5 relative (tests/onnx_check.py, run
under TANDEM_CHECK_PYTHON, the python that has onnx and onnxruntime)."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tandem

CHECK = Path(__file__).resolve().parents[2] / "tests" / "onnx_check.py"


def check_python() -> str:
    python = os.environ.get("TANDEM_CHECK_PYTHON")
    if not python:
        pytest.skip("TANDEM_CHECK_PYTHON is unset: no onnx and onnxruntime to check with")
    return python


def write_csv(path: Path, rows: np.ndarray, header: str = "") -> None:
    lines = [",".join(f"{float(v):.9g}" for v in row) for row in rows]
    path.write_text((header + "\n" if header else "") + "\n".join(lines) + "\n")


def exported_matches_predict(tmp_path: Path, model: tandem.Sequential, x: np.ndarray,
                             prefix: str) -> str:
    """prefix: "p" where predict returns probabilities, "y" for a regression's values."""
    python = check_python()
    model.export_onnx(tmp_path / "model.onnx")
    want = model.predict(x)
    write_csv(tmp_path / "features.csv", x.reshape(len(x), -1))  # images flat, NHWC
    header = ",".join(f"{prefix}{c}" for c in range(want.shape[1]))
    write_csv(tmp_path / "expected.csv", want, header)
    done = subprocess.run([python, str(CHECK), str(tmp_path / "model.onnx"),
                           str(tmp_path / "features.csv"), str(tmp_path / "expected.csv")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    print(done.stdout)
    return done.stdout


def test_a_convolutional_classifier(pocl_pair, digits, tmp_path):
    x, y, x_test, _ = digits
    x, x_test = x.reshape(-1, 8, 8, 1), x_test.reshape(-1, 8, 8, 1)
    model = tandem.Sequential("conv8k3,bn,pool2,16", input_shape=(8, 8, 1), classes=10,
                              activation="gelu", seed=2)
    model.compile(optimizer="adam", lr=5e-3)
    model.fit(x[:512], y[:512], epochs=1, batch_size=64, strategy=pocl_pair)
    out = exported_matches_predict(tmp_path, model, x_test[:64], "p")
    assert "probabilities 64x10" in out


def test_a_regression(pocl_pair, digits, tmp_path):
    x, _, x_test, _ = digits
    targets = np.ascontiguousarray(x[:512, :2] * 3 - 1)  # two pixels, a linear map of them
    model = tandem.Sequential("32,ln", input_shape=(62,), output_activation="linear", seed=2)
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ascontiguousarray(x[:512, 2:]), targets, epochs=1, batch_size=64,
              strategy=pocl_pair)
    out = exported_matches_predict(tmp_path, model, np.ascontiguousarray(x_test[:64, 2:]), "y")
    assert "output 64x2" in out
    model.export(tmp_path / "keras.onnx", format="onnx")  # Keras 3's spelling, the same file
    assert (tmp_path / "keras.onnx").read_bytes() == (tmp_path / "model.onnx").read_bytes()


def test_an_unfitted_model_is_refused(tmp_path):
    model = tandem.Sequential("16", input_shape=(64,), classes=10)
    with pytest.raises(RuntimeError, match="no weights yet"):
        model.export_onnx(tmp_path / "model.onnx")
    assert not (tmp_path / "model.onnx").exists()
    with pytest.raises(ValueError, match="tandem writes format=\"onnx\""):
        model.export(tmp_path / "saved", format="tf_saved_model")
