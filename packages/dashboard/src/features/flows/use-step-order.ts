import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, must } from '../../app/api';
import { moveItem } from '../../kit';
import { type Flow, orderedSteps, sortSteps } from './flow-model';

/**
 * The order of a flow's steps as the editor shows it: a move shows at once and is saved
 * (`POST /steps/reorder` with every step's id in the new order); if the API refuses it, the saved
 * order comes back. A new order from the server (a step added or deleted) replaces the local one.
 */
export function useStepOrder(flow: Flow, onSaved: () => void) {
  const saved = () => sortSteps(flow.steps).map((s) => s.id);
  const [order, setOrder] = useState(saved);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the saved order changes with the flow's steps
  useEffect(() => setOrder(saved()), [flow.steps]);
  const reorder = useMutation({
    mutationFn: (stepIds: string[]) =>
      must(
        api.POST('/api/flows/{id}/steps/reorder', { params: { path: { id: flow.id } }, body: { stepIds } }),
      ),
    onSuccess: onSaved,
    onError: () => setOrder(saved()),
  });
  const move = (from: number, to: number) => {
    const next = moveItem(order, from, to);
    if (!next) return;
    setOrder(next);
    reorder.mutate(next);
  };
  return { steps: orderedSteps(flow.steps, order), move, error: reorder.error };
}
