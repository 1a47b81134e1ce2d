"""The transformer's layers from Python: PositionEmbedding, MultiHeadAttention,
FeedForward and TransformerBlock as objects and as items of a string; a sequence
classifier only attention can learn; the objects and the string make one model."""
import numpy as np
import pytest

import tandem
from tandem import layers

LENGTH, VOCAB = 8, 5
LOGITS = tandem.losses.SparseCategoricalCrossentropy(from_logits=True)


def sequences(seed, n=512):
    """Random ids; the label is the first id mod 3, which pooled positions alone lose."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, VOCAB, size=(n, LENGTH))
    return x.astype(np.float32), (x[:, 0] % 3).astype(np.int32)


def classifier():
    return [layers.Embedding(VOCAB, 16), layers.PositionEmbedding(),
            layers.TransformerBlock(2, causal=False), layers.LayerNormalization(),
            layers.GlobalAveragePooling2D(), layers.Dense(3)]


def test_items():
    assert str(layers.PositionEmbedding()) == "pos"
    assert str(layers.MultiHeadAttention(4)) == "mha4"
    assert str(layers.MultiHeadAttention(4, causal=False)) == "mha4full"
    assert str(layers.FeedForward()) == "ffn" and str(layers.FeedForward(64)) == "ffn64"
    assert str(layers.TransformerBlock(4)) == "block4"
    with pytest.raises(ValueError, match="num_heads >= 1 and a dropout rate"):
        layers.MultiHeadAttention(0)
    with pytest.raises(ValueError, match="a list of layer objects"):
        str(layers.TransformerBlock(4, dropout=0.1))
    model = tandem.Sequential("emb5x8,pos,block2,ln,gap", input_shape=(LENGTH,), classes=3)
    assert [k for k, _ in model.layers] == [
        "embedding", "position_embedding", "layer_norm", "attention", "residual",
        "layer_norm", "feed_forward", "residual", "layer_norm", "global_avg_pool2d"]


def test_a_sequence_classifier_learns(pocl_pair):
    x, y = sequences(1)
    x_test, y_test = sequences(2, 256)
    model = tandem.Sequential(classifier(), input_shape=(LENGTH,))
    model.compile(optimizer="adam", lr=3e-3, loss=LOGITS)
    model.fit(x, y, epochs=30, batch_size=64, strategy=pocl_pair, verbose=0)
    accuracy = model.evaluate(x_test, y_test)[1]
    assert accuracy > 0.95, accuracy
    # emb 5*16, pos 8*16, 3 norms of 2*16, QKV 16*48+48, out 16*16+16, MLP 16*64+64 +
    # 64*16+16, Dense 16*3+3
    assert model.count_params() == 80 + 128 + 96 + 816 + 272 + 1088 + 1040 + 51


def test_objects_make_the_strings_model(pocl_pair):
    x, y = sequences(3, 128)
    objects = tandem.Sequential([layers.Embedding(VOCAB, 8), layers.PositionEmbedding(),
                                 layers.TransformerBlock(2), layers.Dense(3)],
                                input_shape=(LENGTH,))
    text = tandem.Sequential("emb5x8,pos,block2", input_shape=(LENGTH,), classes=3,
                             activation="linear")
    losses = []
    for model in (objects, text):
        model.compile(optimizer="adam", lr=1e-2, loss=LOGITS)
        losses.append(model.fit(x, y, epochs=2, batch_size=32, strategy=pocl_pair,
                                verbose=0).history["loss"])
    assert losses[0] == losses[1]


def test_attention_dropout_reaches_the_graph():
    model = tandem.Sequential([layers.Embedding(VOCAB, 8), layers.PositionEmbedding(),
                               layers.MultiHeadAttention(2, dropout=0.25), layers.Dense(3)],
                              input_shape=(LENGTH,))
    assert "mha2(l1) dropout=0.25" in model.spec
