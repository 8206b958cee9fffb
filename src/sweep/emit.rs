//! Running a sweep's shards on a cluster users already have: a Slurm job
//! array (`sbatch`), or a Kubernetes Indexed Job. Each task runs one shard
//! into a shared directory; `slotsim merge` reads it afterwards.

/// Quotes a word for a POSIX shell.
fn sh(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// An sbatch script: a job array of `shards` tasks, task i running shard
/// i of `shards` of `plan` into `out`.
pub fn slurm(plan: &str, shards: u64, out: &str, cpus: u32) -> String {
    let (plan, out) = (sh(plan), sh(out));
    format!(
        r#"#!/bin/bash
# A slotsim sweep as a Slurm job array: one task per shard.
#   sbatch this-file.sh          (from the directory `slotsim sweep --emit` ran in:
#                                 the plan and output paths below are relative to it)
# then, once every task has finished:
#   slotsim merge {out}
#SBATCH --job-name=slotsim-sweep
#SBATCH --array=1-{shards}
#SBATCH --cpus-per-task={cpus}
#SBATCH --output=slotsim-sweep-%A_%a.log
set -euo pipefail
# The slotsim to run: $SLOTSIM if set, else the one on the PATH.
exec "${{SLOTSIM:-slotsim}}" sweep {plan} --shard "${{SLURM_ARRAY_TASK_ID}}/{shards}" --out {out}
"#
    )
}

/// A Kubernetes Indexed Job: `shards` pods, pod i running shard i + 1.
/// The image must hold `slotsim`; the plan and its scenarios come from the
/// `slotsim-input` volume (a ConfigMap or a volume holding the repository),
/// the results go to the `slotsim-results` PersistentVolumeClaim, which
/// every pod mounts (ReadWriteMany).
pub fn k8s(plan: &str, shards: u64, image: &str, cpus: u32) -> String {
    format!(
        r#"# A slotsim sweep as a Kubernetes Indexed Job: one pod per shard.
#   kubectl apply -f this-file.yaml
# then, once the job has completed, with the results volume mounted:
#   slotsim merge /results
apiVersion: batch/v1
kind: Job
metadata:
  name: slotsim-sweep
spec:
  completionMode: Indexed
  completions: {shards}
  parallelism: {shards}
  backoffLimit: 3
  template:
    spec:
      restartPolicy: OnFailure
      containers:
        - name: slotsim
          image: {image}
          workingDir: /input
          command: ["/bin/sh", "-c"]
          args:
            - exec slotsim sweep {plan} --shard "$((JOB_COMPLETION_INDEX + 1))/{shards}" --out /results
          resources:
            requests:
              cpu: "{cpus}"
          volumeMounts:
            - name: input
              mountPath: /input
              readOnly: true
            - name: results
              mountPath: /results
      volumes:
        - name: input
          persistentVolumeClaim:
            claimName: slotsim-input
        - name: results
          persistentVolumeClaim:
            claimName: slotsim-results
"#,
        plan = sh(plan)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_name_the_array_and_the_shard() {
        let s = slurm("plans/my plan.toml", 8, "out", 2);
        assert!(s.contains("#SBATCH --array=1-8"));
        assert!(s.contains("--shard \"${SLURM_ARRAY_TASK_ID}/8\""));
        assert!(s.contains("'plans/my plan.toml'"));
        let k = k8s("p.toml", 4, "slotsim:1", 1);
        assert!(k.contains("completionMode: Indexed"));
        assert!(k.contains("completions: 4"));
        assert!(k.contains("JOB_COMPLETION_INDEX + 1"));
    }
}
