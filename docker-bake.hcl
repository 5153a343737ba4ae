// Build targets for Dockerfile.nmp-rl-base (Docker Engine 28+, buildx docker driver).
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

group "default" {
  targets = ["production"]
}

target "production" {
  context    = "."
  dockerfile = "Dockerfile.nmp-rl-base"
  target     = "nmp-rl-base"
  tags       = ["nmp-rl-base:latest"]
}

target "hermetic" {
  inherits = ["production"]
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
