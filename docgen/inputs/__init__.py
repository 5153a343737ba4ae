"""Phase B inputs read on every commit: the Dockerfile and the image-size record."""
