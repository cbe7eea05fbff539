import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import '@xyflow/react/dist/style.css';
import { useParams } from 'react-router';
import { api, must } from '../../app/api';
import { FormError, Loading } from '../../kit';
import { Canvas } from './canvas';

/** One journey: the canvas (drag nodes, connect with labelled edges, configure), publish with the errors on their nodes, enrollments, analytics on the canvas. */
export default function JourneyPage() {
  const { id = '' } = useParams();
  // Kept here: a save or publish refetches the journey, whose new updatedAt remounts the canvas.
  const [notice, setNotice] = useState<string | null>(null);
  const journey = useQuery({
    queryKey: ['journey', id],
    queryFn: async () => (await must(api.GET('/api/journeys/{id}', { params: { path: { id } } }))).data,
  });
  if (journey.isPending) return <Loading />;
  if (journey.isError) return <FormError error={journey.error} />;
  return <Canvas key={journey.data.updatedAt} journey={journey.data} notice={notice} onNotice={setNotice} />;
}
