"""What the image must hold, written once for the tests that check it (the facts the issues state)."""

# The nine per-actor venvs the eight prefetch filters give, with the extra each runs with.
PREFETCHED_VENVS = {
    "nemo_rl.models.policy.workers.dtensor_policy_worker.DTensorPolicyWorker": ("fsdp",),
    "nemo_rl.models.policy.workers.dtensor_policy_worker_v2.DTensorPolicyWorkerV2": ("automodel",),
    "nemo_rl.models.policy.workers.megatron_policy_worker.MegatronPolicyWorker": ("mcore",),
    "nemo_rl.models.generation.vllm.vllm_worker.VllmGenerationWorker": ("vllm",),
    "nemo_rl.models.generation.vllm.vllm_worker_async.VllmAsyncGenerationWorker": ("vllm",),
    "nemo_rl.experience.sync_rollout_actor.SyncRolloutActor": ("vllm",),
    "nemo_rl.environments.nemo_gym.NemoGym": ("nemo_gym",),
    "nemo_rl.environments.sandbox.nemo_gym_actor.SandboxedGymActor": ("nemo_gym",),
    "nemo_rl.environments.sandbox.broker_actor.SandboxEpisodeBrokerActor": ("nemo_gym",),
}
PREFETCHED = tuple(PREFETCHED_VENVS)
