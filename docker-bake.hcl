// Build targets for Dockerfile.nmp-rl-base (Docker Engine 28.5.0+, see scripts/check-engine).
//   docker buildx bake production   NeMo-RL from git, NVIDIA base image, managed Python, CMake download
//   docker buildx bake hermetic     no registry, no GitHub: local base/uv images (scripts/make-local-images)
//                                   and the stand-in RL workspace (docgen standin --out build/standin)

variable "STANDIN_DIR" {
  default = "build/standin"
}

// CA bundle handed to downloading RUN steps as a secret (never stored in a layer).
variable "CACERT" {
  default = "/etc/ssl/certs/ca-certificates.crt"
}

// Registry refs of the production build cache, for builds on a shared BuildKit (remote or Kubernetes
// driver: `docker buildx bake --builder NAME production`). Empty: no cache import or export.
variable "CACHE_FROM_REF" {
  default = ""
}
variable "CACHE_TO_REF" {
  default = ""
}

group "default" {
  targets = ["production"]
}

// What every target builds; production and hermetic differ only in their inputs and cache.
target "_image" {
  context    = "."
  dockerfile = "Dockerfile.nmp-rl-base"
  target     = "nmp-rl-base"
}

target "production" {
  inherits   = ["_image"]
  tags       = ["nmp-rl-base:latest"]
  // mode=max also exports the builder stage's layers, which hold the expensive warm-up.
  cache-from = CACHE_FROM_REF == "" ? [] : ["type=registry,ref=${CACHE_FROM_REF}"]
  cache-to   = CACHE_TO_REF == "" ? [] : ["type=registry,ref=${CACHE_TO_REF},mode=max"]
}

target "hermetic" {
  inherits = ["_image"]
  contexts = {
    nemo-rl = "${STANDIN_DIR}"
  }
  args = {
    BASE_IMAGE      = "local/python:3.13-trixie"
    PYTHON_SOURCE   = "system"
    PYTHON_VERSION  = "3.13"
    CMAKE_SOURCE    = "skip"
    SYSTEM_PACKAGES = ""
  }
  secret = ["id=cacert,src=${CACERT}"]
  tags   = ["nmp-rl-base:hermetic"]
  output = ["type=docker"]
}

// The hermetic image plus the Gym environment venv layer: one venv per stand-in Gym server under /opt/gym_venvs.
target "hermetic-gym" {
  inherits = ["hermetic"]
  args = {
    NEMO_GYM_PREFETCH_CONFIGS = "resources_servers/standin_echo/configs/standin_echo.yaml"
  }
  tags = ["nmp-rl-base:hermetic-gym"]
}
