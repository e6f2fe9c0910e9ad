"""Frames in, tiles and sets out: capture, ONNX inference and table geometry.

Nothing here needs PyTorch; the model runs with onnxruntime.
"""
