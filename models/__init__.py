"""The tile model: its ONNX files, the scene renderer and the training/export recipe."""
