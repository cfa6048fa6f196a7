# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""Container runtime providers."""

from .providers import (
    ContainerProvider,
    DockerSwarmProvider,
    KubernetesProvider,
    LocalDockerProvider,
    RuntimeProvider,
)
from .uv_provider import UVProvider

__all__ = [
    "ContainerProvider",
    "DockerSwarmProvider",
    "LocalDockerProvider",
    "KubernetesProvider",
    "RuntimeProvider",
    "UVProvider",
]
