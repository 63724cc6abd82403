"""Phase objectives (:class:`~..parts.PhaseObjective`): how a phase scores its samples.

- :class:`~.group.GroupObjective`: every registered RL algorithm (``trainers/objectives/``:
  the GRPO family, RLOO...): rewards + overlong shaping -> the algorithm's advantage estimator
  -> a padded batch; its loss is the run's;
- :class:`~.bc.BCObjective`: behaviour cloning, advantage 1 and the ``nll`` loss;
- :class:`~.semionline.SemiOnlineObjective`: UI-S1's step and episode advantages.

None of them touches the model or an env; each returns the batch and the update's options.
"""
